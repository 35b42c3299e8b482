package gitops

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// CheckoutRefused is git's refusal to bring a work tree from one commit to another
// (`git read-tree -m -u`): a change of the user's, staged or not, or an untracked file,
// is in a path the move would write. Nothing was changed.
type CheckoutRefused struct {
	Dir   string
	Paths []string // the paths git named, when it named them
	Git   string   // git's own words
}

func (e *CheckoutRefused) Error() string {
	if len(e.Paths) > 0 {
		return fmt.Sprintf("the changes in %s touch files the merge changes: %s", e.Dir, strings.Join(e.Paths, ", "))
	}
	return fmt.Sprintf("git refuses to update the files of %s: %s", e.Dir, e.Git)
}

// CheckMoveCheckout tells, changing nothing, whether MoveCheckout from from to to would
// go through in the work tree dir (`git read-tree -m -u -n`): nil, or a *CheckoutRefused
// naming the paths where a change of the user's is in the way.
func CheckMoveCheckout(ctx context.Context, dir, from, to string) error {
	return readTreeMove(ctx, dir, "checking whether the files of "+dir+" can follow", "-m", "-u", "-n", from, to)
}

// readTreeMove runs read-tree with args in dir; a refusal becomes a *CheckoutRefused.
// git compares a file with the index by its stat data: one touched but unchanged since
// the index was written looks changed, so a refusal is asked again once the index's stat
// data is refreshed (a clean tree, the usual case, costs one git process).
func readTreeMove(ctx context.Context, dir, doing string, args ...string) error {
	err := readTree(ctx, dir, doing, args...)
	var refused *CheckoutRefused
	if errors.As(err, &refused) {
		Git(ctx, dir, "update-index", "-q", "--refresh") // stat data only; a busy index just refuses again
		err = readTree(ctx, dir, doing, args...)
	}
	return err
}

// readTree runs read-tree with args in dir; a refusal becomes a *CheckoutRefused.
func readTree(ctx context.Context, dir, doing string, args ...string) error {
	_, err := Git(ctx, dir, append([]string{"read-tree"}, args...)...)
	var gitErr *Error
	if errors.As(err, &gitErr) {
		if paths := refusedPaths(gitErr.Stderr); len(paths) > 0 {
			return &CheckoutRefused{Dir: dir, Paths: paths, Git: strings.TrimSpace(gitErr.Stderr)}
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	return nil
}

// refusedPaths reads the paths of read-tree's refusals: "Entry 'F' not uptodate",
// "Entry 'F' would be overwritten by merge", "Untracked working tree file 'F' would be
// overwritten by merge" (one line each, the quotes git's own), or the tab-indented
// list under a "the following files" line, as git's porcelain commands word it.
func refusedPaths(stderr string) []string {
	var paths []string
	listing := false
	for _, line := range strings.Split(stderr, "\n") {
		if listing && strings.HasPrefix(line, "\t") {
			paths = append(paths, strings.TrimPrefix(line, "\t"))
			continue
		}
		listing = strings.Contains(line, "the following")
		if !strings.Contains(line, "not uptodate") && !strings.Contains(line, "would be overwritten") && !strings.Contains(line, "would be removed") {
			continue
		}
		if i := strings.IndexByte(line, '\''); i >= 0 {
			if j := strings.LastIndexByte(line, '\''); j > i {
				paths = append(paths, line[i+1:j])
			}
		}
	}
	return dedupe(paths)
}

// IndexDiffers lists the paths where dir's index differs from the tree of commit
// (`git diff-index --cached`: the index's entries only, neither the files nor their stat
// data).
func IndexDiffers(ctx context.Context, dir, commit string) ([]string, error) {
	out, err := Git(ctx, dir, "diff-index", "--cached", "--no-renames", "--name-only", "-z", commit, "--")
	if err != nil {
		return nil, fmt.Errorf("comparing the index of %s with %s: %w", dir, commit, err)
	}
	return splitNul(out), nil
}

// ChangedBetween lists the paths whose content differs between the trees of two commits.
func ChangedBetween(ctx context.Context, dir, a, b string) ([]string, error) {
	out, err := Git(ctx, dir, "diff-tree", "-r", "--no-renames", "--name-only", "-z", a, b, "--")
	if err != nil {
		return nil, fmt.Errorf("listing the files changed from %s to %s: %w", a, b, err)
	}
	return splitNul(out), nil
}
