package fleet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

var discardTime = time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)

func TestDiscardKeepsTheLastCommitAndRefusesUnkeptFiles(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	l, err := Open(ctx, repo, "d", "")
	if err != nil {
		t.Fatal(err)
	}
	git(t, l.Path, "commit", "-q", "--allow-empty", "-m", "work")
	tip := git(t, l.Path, "rev-parse", "HEAD")
	os.MkdirAll(filepath.Join(l.Path, ".ralph"), 0o755) // git-ralph's own: never counted
	os.WriteFile(filepath.Join(l.Path, ".ralph", ".gitignore"), []byte("*\n"), 0o644)
	os.WriteFile(filepath.Join(l.Path, ".ralph", "state.toml"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(l.Path, ".gitignore"), []byte("build/\n"), 0o644)
	git(t, l.Path, "add", ".gitignore")
	git(t, l.Path, "commit", "-q", "-m", "ignore build")
	tip = git(t, l.Path, "rev-parse", "HEAD")
	os.WriteFile(filepath.Join(l.Path, "notes.txt"), []byte("mine"), 0o644)
	os.MkdirAll(filepath.Join(l.Path, "build"), 0o755)
	os.WriteFile(filepath.Join(l.Path, "build", "out"), []byte("made"), 0o644)
	_, err = Discard(ctx, repo, "d", false, discardTime)
	var unkept *UnkeptError
	if !errors.As(err, &unkept) || strings.Join(unkept.Files, " ") != "notes.txt build/" || unkept.Hint() == "" {
		t.Fatalf("Discard with unkept files = %v, want notes.txt and build/ named", err)
	}
	if _, err := os.Stat(l.Path); err != nil {
		t.Fatalf("a refused discard removed the worktree: %v", err)
	}
	d, err := Discard(ctx, repo, "d", true, discardTime)
	if err != nil {
		t.Fatal(err)
	}
	want := BackupPrefix + "d/20261123T050000Z"
	if d.Backup != want || d.Commit != tip || d.Restore() != "git branch ralph/d "+want+" && git ralph loop --worktree d" || len(d.Removed) != 2 {
		t.Errorf("Discard = %+v", d)
	}
	if got := git(t, repo, "rev-parse", want); got != tip {
		t.Errorf("the backup is at %s, want %s", got, tip)
	}
	if got := git(t, repo, "branch", "--list", "ralph/*"); got != "" {
		t.Errorf("branches left: %q", got)
	}
	if _, err := os.Lstat(l.Path); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if _, err := os.Lstat(filepath.Dir(l.Path)); !os.IsNotExist(err) {
		t.Errorf("the empty worktrees' directory is still there: %v", err)
	}
	if _, err := Find(ctx, repo, "d"); err == nil || !strings.Contains(err.Error(), "was discarded") {
		t.Errorf("Find of a discarded loop = %v", err)
	}
	// restored by its printed command, the loop resumes on its branch
	git(t, repo, "branch", "ralph/d", want)
	again, err := Open(ctx, repo, "d", "")
	if err != nil || !again.Created || !again.DiscardedAt.IsZero() {
		t.Fatalf("Open after restoring = %+v, %v", again, err)
	}
	if got := git(t, again.Path, "rev-parse", "HEAD"); got != tip {
		t.Errorf("the restored loop is at %s, want %s", got, tip)
	}
	// a second discard in the same second takes the next name
	if d, err = Discard(ctx, repo, "d", false, discardTime); err != nil || d.Backup != want+"-2" {
		t.Errorf("second discard = %+v, %v", d, err)
	}
}

func TestDiscardRefuses(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	for _, name := range []string{"..", "../x", "main"} {
		if _, err := Discard(ctx, repo, name, true, discardTime); err == nil {
			t.Errorf("Discard(%q) went ahead", name)
		}
	}
	if _, err := Discard(ctx, repo, "nosuch", true, discardTime); err == nil || !strings.Contains(err.Error(), `no loop named "nosuch"`) {
		t.Errorf("Discard(nosuch) = %v", err)
	}
	l, err := Open(ctx, repo, "run", "")
	if err != nil {
		t.Fatal(err)
	}
	lock, err := history.Acquire(filepath.Join(repo, ".git", "worktrees", "run", history.LockFile), history.ThisProcess(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Discard(ctx, repo, "run", true, discardTime); err == nil || !strings.Contains(err.Error(), "the loop run runs") {
		t.Errorf("Discard of a running loop = %v", err)
	}
	lock.Release()
	// the worktree replaced by a symlink to a directory of the user's: never followed
	target := filepath.Join(t.TempDir(), "real")
	os.Remove(target)
	if err := os.Rename(l.Path, target); err != nil { // moved away, with a symlink in its place
		t.Fatal(err)
	}
	os.Symlink(target, l.Path)
	os.WriteFile(filepath.Join(target, "precious"), []byte("x"), 0o644)
	if _, err := Discard(ctx, repo, "run", false, discardTime); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Discard of a symlinked worktree = %v", err)
	}
	if _, err := Discard(ctx, repo, "run", true, discardTime); err != nil {
		t.Fatalf("Discard --force of a symlinked worktree = %v", err)
	}
	if _, err := os.Stat(filepath.Join(target, "precious")); err != nil {
		t.Errorf("the symlink's target lost a file: %v", err)
	}
	if _, err := os.Lstat(l.Path); !os.IsNotExist(err) {
		t.Errorf("the symlink is still there: %v", err)
	}
}

func TestDiscardABranchMovedByHand(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	l, err := Open(ctx, repo, "m", "")
	if err != nil {
		t.Fatal(err)
	}
	git(t, l.Path, "switch", "-q", "--detach")
	git(t, l.Path, "commit", "-q", "--allow-empty", "-m", "detached work")
	detached := git(t, l.Path, "rev-parse", "HEAD")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "elsewhere")
	git(t, repo, "branch", "-f", "ralph/m", "HEAD")
	moved := git(t, repo, "rev-parse", "HEAD")
	d, err := Discard(ctx, repo, "m", false, discardTime)
	if err != nil || d.Commit != moved || d.HeadBackup != d.Backup+"-head" {
		t.Fatalf("Discard of a moved branch = %+v, %v; want its tip %s kept, and the worktree's HEAD", d, err, moved)
	}
	if got := git(t, repo, "rev-parse", d.HeadBackup); got != detached {
		t.Errorf("the worktree's detached commit is kept at %s, want %s", got, detached)
	}
}

func TestPrune(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	for _, name := range []string{"alive", "deleted", "nobranch", "discarded"} {
		l, err := Open(ctx, repo, name, "")
		if err != nil {
			t.Fatal(err)
		}
		git(t, l.Path, "commit", "-q", "--allow-empty", "-m", name)
	}
	os.RemoveAll(Place(repo, "deleted"))
	tip := git(t, repo, "rev-parse", "ralph/deleted")
	os.WriteFile(filepath.Join(Place(repo, "nobranch"), "f"), []byte("x"), 0o644)
	git(t, Place(repo, "nobranch"), "add", "f")
	git(t, Place(repo, "nobranch"), "commit", "-q", "-m", "f")
	git(t, repo, "update-ref", "-d", "refs/heads/ralph/nobranch")
	if _, err := Discard(ctx, repo, "discarded", false, discardTime); err != nil {
		t.Fatal(err)
	}
	stray := Place(repo, "stray")
	os.MkdirAll(stray, 0o755)
	p, err := Prune(ctx, repo, false, discardTime)
	if err != nil {
		t.Fatal(err)
	}
	// nobranch's worktree has an unborn branch: its files are staged, so it is refused
	if strings.Join(p.Forgotten, " ") != "discarded" || len(p.Discarded) != 1 || p.Discarded[0].Name != "deleted" ||
		p.Discarded[0].Commit != tip || len(p.Refused) != 1 || !strings.Contains(p.Refused[0].Error(), "nobranch") ||
		len(p.Left) != 1 || !strings.Contains(p.Left[0], stray) {
		t.Fatalf("Prune = %+v", p)
	}
	if got := git(t, repo, "rev-parse", p.Discarded[0].Backup); got != tip {
		t.Errorf("the deleted loop's branch is kept at %s, want %s", got, tip)
	}
	p, err = Prune(ctx, repo, true, discardTime)
	if err != nil || len(p.Discarded) != 1 || p.Discarded[0].Name != "nobranch" || len(p.Removed) != 1 || len(p.Refused) != 0 {
		t.Fatalf("Prune --force = %+v, %v", p, err)
	}
	list, _, _ := Members(ctx, repo)
	if names := memberNames(list); names != "main alive" {
		t.Errorf("members after prune %q", names)
	}
}
