package gitmerge

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// emptyTree is git's empty tree (SHA-1), the merge base of branches with no common history.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// BranchChanges lists the paths tip changed since its merge base with base (what
// `git diff base...tip` shows), sorted: what merging tip into base would bring. With no
// common history, every path of tip.
func BranchChanges(ctx context.Context, dir, base, tip string) ([]string, error) {
	from, err := gitops.Git(ctx, dir, "merge-base", "--end-of-options", base, tip)
	var gitErr *gitops.Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		from, err = emptyTree, nil
		if format, _ := gitops.Git(ctx, dir, "rev-parse", "--show-object-format"); format == "sha256" {
			from = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
		}
	}
	if err != nil {
		return nil, fmt.Errorf("finding the merge base of %s and %s: %w", base, tip, err)
	}
	out, err := gitops.Git(ctx, dir, "diff-tree", "-r", "-z", "--name-only", "--no-renames", from, tip, "--")
	if err != nil {
		return nil, fmt.Errorf("listing what %s changed since %s: %w", tip, from, err)
	}
	paths := gitstore.SplitNul(out)
	slices.Sort(paths)
	return slices.Compact(paths), nil
}
