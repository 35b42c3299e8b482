package gitwt

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
)

// DeleteWorktree removes the linked work tree at path with all its files, changed and
// untracked ones included (the caller has checked what it would lose), and git's record
// of it. A locked work tree is refused.
func DeleteWorktree(ctx context.Context, dir, path string) error {
	if _, err := gitops.Git(ctx, dir, "worktree", "remove", "--force", "--end-of-options", path); err != nil {
		return fmt.Errorf("removing the worktree %s: %w", path, err)
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
