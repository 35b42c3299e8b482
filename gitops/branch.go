package gitops

import (
	"context"
	"errors"
)

// ErrDetached means HEAD names no branch, so there is nothing to push to a branch.
var ErrDetached = errors.New("HEAD is detached: no branch is checked out")

// CurrentBranch is the branch checked out in dir, or ErrDetached.
func CurrentBranch(ctx context.Context, dir string) (string, error) {
	out, err := Git(ctx, dir, "symbolic-ref", "--quiet", "--short", "HEAD")
	var gitErr *Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return "", ErrDetached
	}
	return out, err
}
