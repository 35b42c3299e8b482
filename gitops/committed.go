package gitops

import (
	"context"
	"fmt"
)

// InHead reports whether the file path (relative to the root of the work tree at dir)
// is in the work tree's HEAD commit: what a new worktree made from HEAD would have. A
// repository without a commit has no file in it.
func InHead(ctx context.Context, dir, path string) (bool, error) {
	if _, ok, err := CommitOf(ctx, dir, "HEAD"); !ok || err != nil {
		return false, err
	}
	out, err := Git(ctx, dir, "ls-tree", "--name-only", "--full-tree", "HEAD", "--", path)
	if err != nil {
		return false, fmt.Errorf("looking for %s in HEAD: %w", path, err)
	}
	return out != "", nil
}
