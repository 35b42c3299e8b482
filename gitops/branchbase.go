package gitops

import (
	"context"
	"errors"
	"strings"
)

// BranchRemote is the remote the current branch tracks, else origin; "" when the
// repository has no such remote (or HEAD is detached and there is no origin).
func BranchRemote(ctx context.Context, dir string) string {
	remote := ""
	if branch, err := CurrentBranch(ctx, dir); err == nil {
		remote, _ = Git(ctx, dir, "config", "--get", "branch."+branch+".remote")
	}
	if remote == "" || remote == "." {
		remote = "origin"
	}
	if !RemoteExists(ctx, dir, remote) {
		return ""
	}
	return remote
}

// RemoteExists reports whether the repository has a remote of that name.
func RemoteExists(ctx context.Context, dir, remote string) bool {
	_, err := Git(ctx, dir, "remote", "get-url", "--", remote)
	return err == nil && !strings.HasPrefix(remote, "-")
}

// Upstream is the full name of the ref the current branch tracks (refs/remotes/origin/main);
// "" for none.
func Upstream(ctx context.Context, dir string) string {
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "--symbolic-full-name", "@{upstream}")
	if err != nil {
		return ""
	}
	return out
}

// RemoteDefault is the full name of the remote's default branch as the clone recorded it
// (refs/remotes/origin/HEAD → refs/remotes/origin/main); "" when it is not known.
func RemoteDefault(ctx context.Context, dir, remote string) string {
	out, err := Git(ctx, dir, "symbolic-ref", "--quiet", "refs/remotes/"+remote+"/HEAD")
	if err != nil || !strings.HasPrefix(out, "refs/remotes/"+remote+"/") {
		return ""
	}
	return out
}

// MergeBase is the best common ancestor of a and b; "" when they have none.
func MergeBase(ctx context.Context, dir, a, b string) (string, error) {
	out, err := Git(ctx, dir, "merge-base", "--end-of-options", a, b)
	var gitErr *Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return "", nil
	}
	return out, err
}

// RemoteURL is the URL of the named remote, or "" when it has none.
func RemoteURL(ctx context.Context, dir, remote string) string {
	out, err := Git(ctx, dir, "config", "--get", "remote."+remote+".url")
	if err != nil {
		return ""
	}
	return out
}

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
