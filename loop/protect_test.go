package loop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/gitops/gittest"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// guardedRepo is a repository whose protected test is committed, and a checkpoint of it.
func guardedRepo(t *testing.T) (string, gitops.Checkpoint, *guard) {
	dir := gittest.NewRepo(t)
	write(t, dir, "tests/acceptance/a_test.txt", "the test\n")
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-qm", "test")
	before, err := gitsnap.TakeCheckpoint(context.Background(), dir, func(gitops.Checkpoint) []gitops.Ref { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return dir, before, &guard{dir: dir, patterns: []string{"tests/acceptance/**"}, run: "20260101T000000Z-abcdef12"}
}

// A commit that changed the test is caught even when the work tree puts the test back:
// the commits count, not only what the work tree holds.
func TestGuardSeesCommitsTheWorkTreeUndid(t *testing.T) {
	dir, before, g := guardedRepo(t)
	write(t, dir, "tests/acceptance/a_test.txt", "weakened\n")
	write(t, dir, "src/x.txt", "work\n")
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-qm", "weaken")
	write(t, dir, "tests/acceptance/a_test.txt", "the test\n")
	rj := g.inspect(context.Background(), before, 7)
	if rj.err != nil || !slices.Equal(rj.paths, []string{"tests/acceptance/a_test.txt"}) || rj.backup != "refs/ralph/backup/20260101T000000Z-abcdef12-protected-7" {
		t.Fatalf("inspect = %+v, want the test named, rolled back", rj)
	}
	if head := gittest.Git(t, dir, "rev-parse", "HEAD"); head != before.Head {
		t.Errorf("HEAD %s, want %s (before the iteration)", head, before.Head)
	}
	if _, err := os.Stat(filepath.Join(dir, "src/x.txt")); !os.IsNotExist(err) {
		t.Errorf("src/x.txt is still there (%v): the whole change goes back", err)
	}
	if got := gittest.Git(t, dir, "show", rj.backup+":src/x.txt"); got != "work" {
		t.Errorf("the backup holds %q of src/x.txt, want the agent's work", got)
	}
}

// A change that touches no protected path is left alone.
func TestGuardLeavesOtherChanges(t *testing.T) {
	dir, before, g := guardedRepo(t)
	write(t, dir, "tests/unit/b_test.txt", "new test\n")
	rj := g.inspect(context.Background(), before, 1)
	if rj.err != nil || len(rj.paths) != 0 || rj.backup != "" {
		t.Fatalf("inspect = %+v, want nothing found", rj)
	}
	if _, err := os.Stat(filepath.Join(dir, "tests/unit/b_test.txt")); err != nil {
		t.Errorf("the agent's file is gone: %v", err)
	}
}
