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
		return "", AsNotRepo(dir, fmt.Errorf("finding the hooks directory: %w", err))
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

// TrackedChanges reports whether dir's index or work tree differs from its HEAD in a
// tracked file (untracked files do not count).
func TrackedChanges(ctx context.Context, dir string) (bool, error) {
	out, err := Git(ctx, dir, "status", "--porcelain", "--untracked-files=no", "-z")
	if err != nil {
		return false, fmt.Errorf("reading the status of %s: %w", dir, err)
	}
	return out != "", nil
}
