package gitwt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
)

func TestListPutsMainFirstThenLinked(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	linked := filepath.Join(t.TempDir(), "odd\nname")
	if err := AddOnBranch(ctx, dir, linked, "ralph/x", "HEAD"); err != nil {
		t.Fatal(err)
	}
	list, err := List(ctx, linked)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("got %d worktrees, want 2: %+v", len(list), list)
	}
	if !sameDir(list[0].Path, dir) || list[0].Branch != "refs/heads/main" || list[0].Head != head {
		t.Errorf("main = %+v, want %s on refs/heads/main at %s", list[0], dir, head)
	}
	if !sameDir(list[1].Path, linked) || list[1].Branch != "refs/heads/ralph/x" || list[1].Head != head || list[1].Prunable {
		t.Errorf("linked = %+v, want %q on refs/heads/ralph/x at %s", list[1], linked, head)
	}
}

func TestListMarksADeletedDirectoryPrunable(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	linked := filepath.Join(t.TempDir(), "gone")
	if err := AddOnBranch(ctx, dir, linked, "ralph/gone", "HEAD"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(linked); err != nil {
		t.Fatal(err)
	}
	list, err := List(ctx, dir)
	if err != nil || len(list) != 2 || !list[1].Prunable {
		t.Fatalf("List = %+v, %v; want the second prunable", list, err)
	}
	if err := Prune(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if list, _ := List(ctx, dir); len(list) != 1 {
		t.Fatalf("after prune: %+v, want the main tree only", list)
	}
	// the branch stays, and a new worktree can check it out again
	if err := AddOnBranch(ctx, dir, linked, "ralph/gone", ""); err != nil {
		t.Fatalf("checking out the kept branch again: %v", err)
	}
}

func TestAddOnBranchRefusesAnExistingBranchOrPath(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	run(t, dir, "branch", "ralph/taken")
	if err := AddOnBranch(ctx, dir, filepath.Join(t.TempDir(), "a"), "ralph/taken", "HEAD"); err == nil {
		t.Error("creating a branch that exists succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	write(t, filepath.Dir(file), "file", "mine\n")
	if err := AddOnBranch(ctx, dir, file, "ralph/new", "HEAD"); err == nil {
		t.Error("adding a worktree over a file succeeded")
	}
	if data, _ := os.ReadFile(file); string(data) != "mine\n" {
		t.Errorf("the file became %q", data)
	}
}

func TestResolveCommit(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	run(t, dir, "tag", "-a", "-m", "t", "v1")
	for _, tc := range []struct {
		rev, branch string
		ok          bool
	}{
		{"HEAD", "refs/heads/main", true},
		{"main", "refs/heads/main", true},
		{"v1", "", true},
		{head, "", true},
		{"nosuch", "", false},
		{"--all", "", false},
		{"HEAD^{tree}", "", false},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			commit, branch, ok, err := gitops.ResolveCommit(ctx, dir, tc.rev)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok || branch != tc.branch || (ok && commit != head) {
				t.Errorf("ResolveCommit(%q) = %q, %q, %v; want %s, %q, %v", tc.rev, commit, branch, ok, head, tc.branch, tc.ok)
			}
		})
	}
	run(t, dir, "checkout", "-q", "--detach")
	if _, branch, _, _ := gitops.ResolveCommit(ctx, dir, "HEAD"); branch != "" {
		t.Errorf("a detached HEAD gave the branch %q", branch)
	}
}

func TestCountAheadAndCommonDir(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	linked := filepath.Join(t.TempDir(), "l")
	if err := AddOnBranch(ctx, dir, linked, "ralph/l", "main"); err != nil {
		t.Fatal(err)
	}
	run(t, linked, "commit", "-q", "--allow-empty", "-m", "one")
	run(t, linked, "commit", "-q", "--allow-empty", "-m", "two")
	if n, err := gitops.CountAhead(ctx, dir, "refs/heads/main", "refs/heads/ralph/l"); err != nil || n != 2 {
		t.Errorf("CountAhead = %d, %v; want 2", n, err)
	}
	if n, err := gitops.CountAhead(ctx, dir, "refs/heads/ralph/l", "refs/heads/main"); err != nil || n != 0 {
		t.Errorf("CountAhead backwards = %d, %v; want 0", n, err)
	}
	a, err1 := gitops.CommonDir(ctx, dir)
	b, err2 := gitops.CommonDir(ctx, linked)
	if err1 != nil || err2 != nil || !sameDir(a, b) || !sameDir(a, filepath.Join(dir, ".git")) {
		t.Errorf("CommonDir = %q (%v), %q (%v); want both %s/.git", a, err1, b, err2, dir)
	}
}

// MainPath must name what `git worktree list` puts first, from the main work tree, a
// linked one, a bare repository, and through a symlinked path.
func TestMainPathAsGitListsIt(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "--detach", wt)
	bare := filepath.Join(t.TempDir(), "bare.git")
	run(t, dir, "clone", "-q", "--bare", dir, bare)
	bareWt := filepath.Join(t.TempDir(), "bwt")
	run(t, bare, "worktree", "add", "-q", "--detach", bareWt)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{dir, wt, bare, bareWt, link} {
		list, err := List(ctx, at)
		if err != nil {
			t.Fatal(err)
		}
		common, err := gitops.CommonDir(ctx, at)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := MainPath(common); err != nil || got != list[0].Path {
			t.Errorf("from %s: MainPath(%s) = %q, %v; git lists %q", at, common, got, err, list[0].Path)
		}
	}
}

// A worktree another command is adding has its administrative files half written for a
// moment; `git worktree list` dies on them. The list waits for the add to finish.
func TestListWaitsForAWorktreeBeingAdded(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	linked := filepath.Join(t.TempDir(), "linked")
	if err := AddOnBranch(ctx, dir, linked, "ralph/x", "HEAD"); err != nil {
		t.Fatal(err)
	}
	commondir := filepath.Join(dir, ".git", "worktrees", "linked", "commondir")
	whole, err := os.ReadFile(commondir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(commondir, nil, 0o644); err != nil { // as git add leaves it a moment
		t.Fatal(err)
	}
	if _, err := gitops.Git(ctx, dir, "worktree", "list", "--porcelain", "-z"); err == nil {
		t.Fatal("git lists a worktree whose commondir is empty: nothing to wait for")
	}
	finished := time.AfterFunc(100*time.Millisecond, func() { os.WriteFile(commondir, whole, 0o644) })
	defer finished.Stop()
	list, err := List(ctx, dir)
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %d, %v; want the 2 worktrees once the add is done", len(list), err)
	}
}

func TestTemporaryWorktree(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	first := run(t, dir, "rev-parse", "HEAD")
	write(t, dir, "a.txt", "changed\n")
	run(t, dir, "commit", "-q", "-am", "second")
	write(t, dir, "a.txt", "uncommitted\n")

	path := filepath.Join(t.TempDir(), "wt")
	if err := Add(ctx, dir, path, first); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(path, "a.txt")); string(data) != "one\n" {
		t.Errorf("a.txt in the worktree = %q, want the first commit's", data)
	}
	if clean, err := gitsnap.WorkTreeClean(ctx, dir); err != nil || clean {
		t.Errorf("WorkTreeClean(dir) = %v, %v with an uncommitted change", clean, err)
	}
	if err := ForceRemove(ctx, dir, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if list := run(t, dir, "worktree", "list", "--porcelain"); strings.Contains(list, path) {
		t.Errorf("git still lists the worktree:\n%s", list)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "uncommitted\n" {
		t.Errorf("the work tree's change was touched: %q", data)
	}
}

func TestForceRemoveAlreadyDeleted(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	path := filepath.Join(t.TempDir(), "wt")
	if err := Add(ctx, dir, path, "HEAD"); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(path)
	if err := ForceRemove(ctx, dir, path); err != nil {
		t.Fatal(err)
	}
	if list := run(t, dir, "worktree", "list", "--porcelain"); strings.Contains(list, path) {
		t.Errorf("git still lists the deleted worktree:\n%s", list)
	}
}
