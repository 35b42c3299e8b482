package gitops

import (
	"context"
	"fmt"
)

// TrackedChanges reports whether dir's index or work tree differs from its HEAD in a
// tracked file (untracked files do not count).
func TrackedChanges(ctx context.Context, dir string) (bool, error) {
	out, err := Git(ctx, dir, "status", "--porcelain", "--untracked-files=no", "-z")
	if err != nil {
		return false, fmt.Errorf("reading the status of %s: %w", dir, err)
	}
	return out != "", nil
}
