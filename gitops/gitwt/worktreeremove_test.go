package gitwt

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

func TestDeleteBranchOnlyWhereItWas(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	first := run(t, dir, "rev-parse", "HEAD")
	run(t, dir, "branch", "b")
	run(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	run(t, dir, "branch", "-f", "b", "HEAD") // moved by hand
	if err := DeleteBranch(ctx, dir, "refs/heads/b", first); err == nil {
		t.Fatal("a branch that moved was deleted")
	}
	if err := DeleteBranch(ctx, dir, "b", first); err == nil {
		t.Error("a short name was taken")
	}
	if err := DeleteBranch(ctx, dir, "refs/heads/b", run(t, dir, "rev-parse", "b")); err != nil {
		t.Fatal(err)
	}
	if h, _ := gitops.ResolveRef(ctx, dir, "refs/heads/b"); h != "" {
		t.Errorf("the branch is still at %s", h)
	}
}

func TestRemoveDeletesItsFiles(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	if err := AddOnBranch(ctx, dir, wt, "w", "HEAD"); err != nil {
		t.Fatal(err)
	}
	write(t, wt, "untracked", "x")
	if err := Remove(ctx, dir, wt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(wt); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if list, _ := List(ctx, dir); len(list) != 1 {
		t.Errorf("git still lists %d work trees", len(list))
	}
}
