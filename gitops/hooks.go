package gitops

import (
	"context"
	"fmt"
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
