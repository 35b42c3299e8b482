package gitsnap

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

func TestTreeShapeTouches(t *testing.T) {
	shape := newTreeShape([]string{".env", "src/main.go", "out", "deep/a/b/c.txt"})
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".env", true},            // the tree holds a file there: overwritten
		{"src/main.go", true},     // same, in a directory
		{"src", true},             // a file where the tree has a directory: deleted
		{"deep/a", true},          // same, deeper
		{"out/report.html", true}, // a file under a path the tree holds as a file: deleted
		{"out/x/y", true},         // same, deeper
		{"src/other.go", false},   // a sibling the tree does not mention
		{"node_modules/x/index.js", false},
		{".envrc", false}, // a prefix of a name is not its directory
		{"deep/a/b/c.txt.bak", false},
		{"deep/a/b/c.txt/inner", true}, // under a file of the tree: writing c.txt deletes it
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := shape.touches(tc.path); got != tc.want {
				t.Errorf("touches(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// ignoredRepo has a committed .env and out/keep.txt, then a commit that stops tracking
// .env and ignores it, out/ and node_modules/. target is the checkpoint before that commit.
func ignoredRepo(t *testing.T) (dir string, target gitops.Checkpoint) {
	t.Helper()
	dir = newRepo(t)
	write(t, dir, ".env", "KEY=old\n")
	write(t, dir, "out", "a file named out\n")
	write(t, dir, "cache/a", "cached\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "first")
	target, err := TakeCheckpoint(context.Background(), dir, keepNothing)
	if err != nil {
		t.Fatal(err)
	}
	run(t, dir, "rm", "-q", "-r", "--cached", ".env", "out", "cache")
	write(t, dir, ".gitignore", ".env\nout\nout/\nnode_modules/\ncache\n")
	run(t, dir, "add", ".gitignore")
	run(t, dir, "commit", "-q", "-m", "ignore")
	for _, p := range []string{"out", "cache/a"} {
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "cache")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, ".env", "KEY=secret\n")            // ignored, overwritten by the target
	write(t, dir, "out/report.html", "report\n")     // ignored, in a directory where the target has a file
	write(t, dir, "cache", "a file named cache\n")   // ignored, a file where the target has a directory
	write(t, dir, "node_modules/x/index.js", "js\n") // ignored, not in the target: left alone
	return dir, target
}

func TestPlanRestoreSeesIgnoredFiles(t *testing.T) {
	ctx := context.Background()
	dir, target := ignoredRepo(t)
	plan, err := PlanRestore(ctx, dir, target, "")
	if err != nil {
		t.Fatal(err)
	}
	wantIgnored := []string{".env", "cache", "out/report.html"}
	if !reflect.DeepEqual(plan.Ignored, wantIgnored) {
		t.Errorf("Ignored = %q, want %q", plan.Ignored, wantIgnored)
	}
	wantChanged := []string{".env", ".gitignore", "cache", "cache/a", "out", "out/report.html"}
	if !reflect.DeepEqual(plan.Changed, wantChanged) {
		t.Errorf("Changed = %q, want %q", plan.Changed, wantChanged)
	}
	// .gitignore is committed at HEAD, cache/a and out are created: only the ignored files are at risk
	if !reflect.DeepEqual(plan.Uncommitted, wantIgnored) {
		t.Errorf("Uncommitted = %q, want %q", plan.Uncommitted, wantIgnored)
	}
	if got := run(t, dir, "cat-file", "-p", plan.Present+":.env"); got != "KEY=secret" {
		t.Errorf("Present's .env = %q, want the secret", got)
	}
}

func TestApplyRestoresTheCheckpoint(t *testing.T) {
	ctx := context.Background()
	dir, target := ignoredRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	plan, err := PlanRestore(ctx, dir, target, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Apply(ctx, dir, "test"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{".env": "KEY=old\n", "out": "a file named out\n",
		"cache/a": "cached\n", "node_modules/x/index.js": "js\n"} {
		if got, err := os.ReadFile(filepath.Join(dir, path)); err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", path, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); !os.IsNotExist(err) {
		t.Errorf(".gitignore still there (%v): the target has none", err)
	}
	if got := run(t, dir, "rev-parse", "HEAD"); got != target.Head {
		t.Errorf("HEAD = %s, want %s", got, target.Head)
	}
	if got := run(t, dir, "status", "--porcelain", "--untracked-files=all"); got != "?? node_modules/x/index.js" {
		t.Errorf("status after restore = %q, want only the untouched ignored file, now untracked", got)
	}

	// and back: the Present tree is the state before, ignored files included
	back, err := PlanRestore(ctx, dir, gitops.Checkpoint{Head: head, Tree: plan.Present}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Apply(ctx, dir, "test"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{".env": "KEY=secret\n", "out/report.html": "report\n",
		"cache": "a file named cache\n", "node_modules/x/index.js": "js\n"} {
		if got, err := os.ReadFile(filepath.Join(dir, path)); err != nil || string(got) != want {
			t.Errorf("after undo %s = %q (%v), want %q", path, got, err, want)
		}
	}
	if got := run(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("status after undo = %q, want clean", got)
	}
}

func TestPlanRestoreUncommittedWork(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	write(t, dir, "a.txt", "checkpoint edit\n") // uncommitted at the checkpoint
	write(t, dir, "new.txt", "untracked at the checkpoint\n")
	target, err := TakeCheckpoint(ctx, dir, keepNothing)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "later edit\n")
	write(t, dir, "dir/b.txt", "committed later\n")
	run(t, dir, "commit", "-q", "-am", "later")
	remove(t, filepath.Join(dir, "new.txt"))
	write(t, dir, "late.txt", "created after\n")
	write(t, dir, ".ralph/config.toml", "own file, untracked\n")
	plan, err := PlanRestore(ctx, dir, target, ".ralph")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "dir/b.txt", "late.txt", "new.txt"}; !reflect.DeepEqual(plan.Changed, want) {
		t.Errorf("Changed = %q, want %q", plan.Changed, want)
	}
	// a.txt and dir/b.txt are committed at HEAD; new.txt is created; late.txt would be deleted
	if want := []string{"late.txt"}; !reflect.DeepEqual(plan.Uncommitted, want) {
		t.Errorf("Uncommitted = %q, want %q", plan.Uncommitted, want)
	}
	unkept, err := plan.Unkept(ctx, dir, plan.Present)
	if err != nil || len(unkept) != 0 {
		t.Errorf("Unkept(Present) = %q, %v; want none: Present keeps everything", unkept, err)
	}
	if err := plan.Apply(ctx, dir, "test"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "status", "--porcelain"); got != " M a.txt\n?? .ralph/\n?? new.txt" {
		t.Errorf("status = %q, want the checkpoint's uncommitted changes and .ralph/", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".ralph/config.toml")); string(got) != "own file, untracked\n" {
		t.Errorf(".ralph/config.toml = %q, want it left alone", got)
	}
}

func TestApplyRefusesAFileChangedSincePlan(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	target, err := TakeCheckpoint(ctx, dir, keepNothing)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "committed later\n")
	run(t, dir, "commit", "-q", "-am", "later")
	head := run(t, dir, "rev-parse", "HEAD")
	plan, err := PlanRestore(ctx, dir, target, "")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "written after the plan, kept nowhere\n")
	if err := plan.Apply(ctx, dir, "test"); err == nil {
		t.Fatal("Apply overwrote a file changed after the plan")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "written after the plan, kept nowhere\n" {
		t.Errorf("a.txt = %q, want it untouched", got)
	}
	if got := run(t, dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s after a failed restore", got)
	}
}

func TestApplyBeforeTheFirstCommit(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "prompt.md", "untracked at the checkpoint\n")
	target, err := TakeCheckpoint(ctx, dir, keepNothing)
	if err != nil || target.Head != "" {
		t.Fatalf("checkpoint = %+v, %v; want one with no commit", target, err)
	}
	write(t, dir, "work.txt", "first commit\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "first")
	first := run(t, dir, "rev-parse", "HEAD")

	run(t, dir, "checkout", "-q", "--detach")
	plan, err := PlanRestore(ctx, dir, target, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Apply(ctx, dir, "test"); err == nil {
		t.Fatal("Apply emptied a detached HEAD")
	}
	if _, err := os.Stat(filepath.Join(dir, "work.txt")); err != nil {
		t.Errorf("a refused Apply touched work.txt: %v", err)
	}

	run(t, dir, "checkout", "-q", "main")
	if err := plan.Apply(ctx, dir, "test"); err != nil {
		t.Fatal(err)
	}
	if head, err := gitops.Head(ctx, dir); err != nil || head != "" {
		t.Errorf("HEAD = %q, %v; want main unborn again (it was %s)", head, err, first)
	}
	if got := run(t, dir, "status", "--porcelain"); got != "?? prompt.md" {
		t.Errorf("status = %q, want only the untracked prompt", got)
	}
}

func TestCheckComplete(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	if err := gitops.CheckComplete(ctx, dir, head); err != nil {
		t.Fatalf("a whole commit: %v", err)
	}
	blob := run(t, dir, "rev-parse", "HEAD:dir/b.txt")
	remove(t, filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])) // as a gc --prune=now would
	if err := gitops.CheckComplete(ctx, dir, head); err == nil {
		t.Fatal("CheckComplete passed a commit whose blob is gone")
	}
}
