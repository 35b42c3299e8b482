package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
)

// bundleRef is the ref a bundle names its tip by: a bundle needs a ref name for the
// commit it carries, and the tip is usually a commit no ref points to.
const bundleRef = "refs/ralph/bundle/tip"

// WriteBundle writes to path a git bundle holding tip and everything it reaches that
// base does not: the commits and objects that a repository holding base needs to have
// tip. base "" (an unborn branch) bundles tip's whole history. The ref it names the tip
// by exists only while the bundle is written.
func WriteBundle(ctx context.Context, dir, path, tip, base string) error {
	ref := bundleRef + "-" + strings.TrimPrefix(tip, "-")
	if err := gitops.KeepAliveAll(ctx, dir, []gitops.Ref{{Name: ref, Hash: tip}}); err != nil {
		return fmt.Errorf("writing a bundle of %s: %w", tip, err)
	}
	defer gitops.DeleteRefs(context.WithoutCancel(ctx), dir, []string{ref})
	args := []string{"bundle", "create", "--quiet", path, ref}
	if base != "" {
		args = append(args, "^"+base)
	}
	if _, err := gitops.Git(ctx, dir, args...); err != nil {
		return fmt.Errorf("writing a bundle of %s: %w", tip, err)
	}
	return nil
}

// ErrBundleNeeds is found (errors.Is) in ReadBundle's error when the repository lacks a
// commit the bundle was made on top of: it is not the repository (or not the state of it)
// that the bundle came from.
var ErrBundleNeeds = errors.New("the repository lacks a commit the bundle needs")

// ReadBundle adds the objects of the bundle at path to the repository and keeps its tip
// alive with keep (a ref under refs/, not a branch), returning the tip. git checks the
// bundle (its format, its objects, the commits it needs) before anything is added.
func ReadBundle(ctx context.Context, dir, path, keep string) (string, error) {
	if _, err := gitops.Git(ctx, dir, "bundle", "verify", path); err != nil {
		var gitErr *gitops.Error
		if errors.As(err, &gitErr) && strings.Contains(gitErr.Stderr, "prerequisite") {
			return "", fmt.Errorf("%w: %s", ErrBundleNeeds, strings.TrimSpace(gitErr.Stderr))
		}
		return "", fmt.Errorf("checking the bundle %s: %w", path, err)
	}
	out, err := gitops.Git(ctx, dir, "bundle", "unbundle", path)
	if err != nil {
		return "", fmt.Errorf("reading the bundle %s: %w", path, err)
	}
	lines := strings.Split(out, "\n")
	tip, _, ok := strings.Cut(lines[0], " ")
	if !ok || len(lines) > 1 {
		// a hostile bundle may name thousands: the count, and the first
		return "", fmt.Errorf("reading the bundle %s: it should name one commit, it names %d refs (the first: %q)", path, len(lines), lines[0])
	}
	if err := gitops.KeepAliveAll(ctx, dir, []gitops.Ref{{Name: keep, Hash: tip}}); err != nil {
		return "", err
	}
	return tip, nil
}

// CheckpointNow is the repository's checkpoint now (see TakeCheckpoint), kept alive by no
// ref: for a caller that only compares it or uses it at once.
func CheckpointNow(ctx context.Context, dir string) (gitops.Checkpoint, error) {
	return takeCheckpoint(ctx, dir)
}
