package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// HooksDir is the directory git runs the hooks of dir's repository from: core.hooksPath
// when set (a relative one is relative to the work tree's root), else the hooks
// directory of the repository's common git directory, shared by its linked worktrees.
// Unlike GitPath it is not cached: core.hooksPath is the user's to change at any time.
func HooksDir(ctx context.Context, dir string) (string, error) {
	path, err := Git(ctx, dir, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", asNotRepo(dir, fmt.Errorf("finding the hooks directory: %w", err))
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return path, nil
}

// QuickRoot finds the top of the work tree containing dir by looking for a .git entry
// (a directory, or the file of a linked worktree or submodule) in dir and its parents,
// without starting git: the pre-push hook has to be fast when it has nothing to do.
// It reports false when git might answer differently (GIT_DIR or GIT_WORK_TREE in the
// environment) or when no .git is found; callers then ask git with Root.
func QuickRoot(dir string) (string, bool) {
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"} {
		if os.Getenv(name) != "" {
			return "", false
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// CommitOf resolves rev (a hash, a ref, an annotated tag) to the commit it names. It
// reports false when rev names no commit, e.g. a tag of a tree or a blob.
func CommitOf(ctx context.Context, dir, rev string) (string, bool, error) {
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	var gitErr *Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("resolving %s: %w", rev, err)
	}
	return out, true, nil
}

// WorkTreeClean reports whether dir's work tree has no staged, unstaged or untracked (not
// ignored) change, reading the index without writing it.
func WorkTreeClean(ctx context.Context, dir string) (bool, error) {
	return cleanWorkTree(ctx, dir)
}

// AddWorktree checks out commit, detached, in a new linked worktree at path (which must
// not exist), leaving the work tree at dir and its branch alone.
func AddWorktree(ctx context.Context, dir, path, commit string) error {
	if _, err := Git(ctx, dir, "worktree", "add", "--quiet", "--detach", path, commit); err != nil {
		return fmt.Errorf("checking out %s in a temporary worktree: %w", short(commit), err)
	}
	return nil
}

// RemoveWorktree deletes the linked worktree at path with whatever it holds, and its
// administrative files in the repository. When git cannot (the directory is already
// gone, say), it removes the directory itself and prunes git's record of it.
func RemoveWorktree(ctx context.Context, dir, path string) error {
	_, err := Git(ctx, dir, "worktree", "remove", "--force", "--force", path)
	if err == nil {
		return nil
	}
	if rmErr := os.RemoveAll(path); rmErr != nil {
		return fmt.Errorf("removing the temporary worktree %s: %w", path, rmErr)
	}
	if _, err := Git(ctx, dir, "worktree", "prune"); err != nil {
		return fmt.Errorf("pruning the temporary worktree %s: %w", path, err)
	}
	return nil
}

// short is the abbreviated form of a commit hash, for messages.
func short(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}
