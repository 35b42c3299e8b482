package historyview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Span is a parsed --diff: one iteration (First == Last) or A..B.
type Span struct {
	First, Last int
	Range       bool
}

// ParseSpan reads --diff: N or A..B, the older first.
func ParseSpan(arg string) (Span, error) {
	a, b, isRange := strings.Cut(arg, "..")
	first, err1 := strconv.Atoi(a)
	last := first
	var err2 error
	if isRange {
		last, err2 = strconv.Atoi(b)
	}
	bad := hints.Wrap(fmt.Errorf("--diff %q is not an iteration number or a range A..B", arg),
		"e.g. --diff 3 or --diff 2..5; 'git ralph history' lists the iterations")
	switch {
	case err1 != nil || err2 != nil || first < 1 || last < 1:
		return Span{}, bad
	case first > last:
		return Span{}, hints.Wrap(fmt.Errorf("--diff %s: %d comes after %d", arg, first, last), "write the older iteration first: --diff %d..%d", last, first)
	}
	return Span{First: first, Last: last, Range: isRange}, nil
}

// keptTree resolves one of the trees the loop keeps for iteration n.
func keptTree(ctx context.Context, root string, store *history.Store, n int, which string) (string, error) {
	ref, err := loop.CheckpointRef(ctx, root, n, which)
	if err != nil {
		return "", err
	}
	tree, err := gitops.ResolveRef(ctx, root, ref)
	if err != nil || tree != "" {
		return tree, err
	}
	return "", hints.MissingIteration(store, n, "checkpoint "+ref)
}

// SavedDiff streams iteration n's diff as it was saved, so it needs none of git's
// objects and survives a rebase or gc.
func SavedDiff(ctx context.Context, w io.Writer, root string, store *history.Store, n int, stat bool) error {
	f, err := repofile.OpenOwn(store.DiffPath(n), store.DiffPath(n)) // never through a committed symlink
	if errors.Is(err, fs.ErrNotExist) {
		return hints.MissingIteration(store, n, "saved diff")
	}
	if err != nil {
		return fmt.Errorf("reading the diff of iteration %d: %w", n, err)
	}
	defer f.Close()
	if !stat {
		if _, err := io.Copy(w, f); err != nil {
			return fmt.Errorf("printing the diff of iteration %d: %w", n, err)
		}
		return nil
	}
	if info, err := f.Stat(); err != nil || info.Size() == 0 {
		return err // an iteration that changed nothing has an empty diff and no stat
	}
	return gitsnap.PatchStat(ctx, root, f, w)
}

// RangeDiff diffs the work tree kept at the start of span.First against the one kept at
// the end of span.Last.
func RangeDiff(ctx context.Context, w io.Writer, root string, store *history.Store, span Span, stat bool) error {
	from, err := keptTree(ctx, root, store, span.First, "before-tree")
	if err != nil {
		return err
	}
	to, err := keptTree(ctx, root, store, span.Last, "after-tree")
	if err != nil {
		return err
	}
	if stat {
		return gitsnap.DiffStatText(ctx, root, from, to, w)
	}
	return gitsnap.Diff(ctx, root, from, to, w)
}
