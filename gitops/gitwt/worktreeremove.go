package gitwt

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
)

// Remove removes the linked work tree at path with all its files, changed and
// untracked ones included (the caller has checked what it would lose), and git's record
// of it. A locked work tree is refused, and so is one git cannot remove: the caller
// reports it. For a worktree of git-ralph's own that must go whatever state it is in,
// ForceRemove.
func Remove(ctx context.Context, dir, path string) error {
	if _, err := gitops.Git(ctx, dir, "worktree", "remove", "--force", "--end-of-options", path); err != nil {
		return fmt.Errorf("removing the worktree %s: %w", path, err)
	}
	return nil
}

// ForceRemove deletes the linked worktree at path with whatever it holds, and its
// administrative files in the repository, locked or not: for the temporary worktrees
// git-ralph adds for itself. When git cannot (the directory is already gone, say), it
// removes the directory itself and prunes git's record of it. A worktree the user may
// hold on to is Remove's.
func ForceRemove(ctx context.Context, dir, path string) error {
	_, err := gitops.Git(ctx, dir, "worktree", "remove", "--force", "--force", path)
	if err == nil {
		return nil
	}
	if rmErr := os.RemoveAll(path); rmErr != nil {
		return fmt.Errorf("removing the temporary worktree %s: %w", path, rmErr)
	}
	if _, err := gitops.Git(ctx, dir, "worktree", "prune"); err != nil {
		return fmt.Errorf("pruning the temporary worktree %s: %w", path, err)
	}
	return nil
}

// DeleteBranch deletes branch (a full ref under refs/heads/) if it still points to old:
// a branch that moved meanwhile is left alone and reported.
func DeleteBranch(ctx context.Context, dir, branch, old string) error {
	if !strings.HasPrefix(branch, "refs/heads/") || old == "" {
		return fmt.Errorf("deleting branch %q at %q: want a full branch name and its commit", branch, old)
	}
	if _, err := gitops.Git(ctx, dir, "update-ref", "--no-deref", "-d", branch, old); err != nil {
		return fmt.Errorf("deleting the branch %s: %w", strings.TrimPrefix(branch, "refs/heads/"), err)
	}
	return nil
}
