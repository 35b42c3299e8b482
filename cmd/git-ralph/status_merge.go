package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// repairMerges finishes or undoes what a killed merge left, as 'runs' and 'merge' do
// (mergequeue.Recover): a merge half landed, or a work tree with the base checked out
// whose index stayed behind the branch, which a 'git commit -a' there would turn into
// the merge's undoing. Each thing done, or a tree it cannot bring along, is said on
// stderr; a failure to look is no failure of status.
func repairMerges(ctx context.Context, s Streams, root string) {
	recoverMerges(ctx, s, root)
}

// printMergeState adds the merge queue's line to `status` for the worktree loop at root,
// when it asked for a merge that still concerns its branch: queued, merging,
// needs-review (with what went wrong) or merged.
func printMergeState(ctx context.Context, w io.Writer, root string) {
	members, _, err := fleet.Members(ctx, root)
	if err != nil {
		return
	}
	common, err := gitops.CommonDir(ctx, root)
	if err != nil {
		return
	}
	for _, m := range members {
		if m.Worktree == nil || filepath.Clean(m.Path) != filepath.Clean(root) {
			continue
		}
		merge, found, err := history.LoadMerge(common, m.Name)
		if err != nil || !found {
			return
		}
		tip, _ := gitops.ResolveRef(ctx, root, m.Worktree.Branch)
		run := status.Run{}
		if status.WithMerge(&run, merge, tip); run.State != "" {
			fmt.Fprintf(w, "merge: %s\n", display.Printable(mergeDetail(run, merge)))
		}
	}
}

// mergeDetail is the merge line: the state, what it is about, and what to do.
func mergeDetail(run status.Run, m history.Merge) string {
	base := strings.TrimPrefix(m.BaseBranch, "refs/heads/")
	switch {
	case run.State == history.MergeNeedsReview && m.Problem == "conflict":
		return fmt.Sprintf("needs-review: merging into %s conflicts in %s; '%s'", base, strings.Join(m.Conflicts, ", "), run.Look)
	case run.State == history.MergeNeedsReview:
		return fmt.Sprintf("needs-review: the merge into %s fails validation (%s); '%s'", base, m.Validate, run.Look)
	case run.State == history.MergeMerged:
		return fmt.Sprintf("merged into %s (at %s)", base, display.ShortHash(m.Result))
	}
	return fmt.Sprintf("%s for %s", run.State, base)
}
