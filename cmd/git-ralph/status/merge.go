package status

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// WithMerge puts the merge queue's word for the loop over the state its loop wrote:
// queued and merging always; needs-review (with its problem) and merged as long as the
// loop's branch is still at tip, the commit they were about — a loop that went on since
// shows its own state again.
func WithMerge(r *Run, m history.Merge, tip string) {
	switch m.State {
	case history.MergeQueued, history.MergeMerging:
		r.State, r.Reason = m.State, ""
	case history.MergeNeedsReview, history.MergeMerged:
		if tip == "" || tip != m.Tip {
			return
		}
		r.State, r.Reason = m.State, m.Problem
		if m.State == history.MergeNeedsReview {
			r.Look = "git ralph merge " + m.Name + " --resolve"
		}
	}
}

// Place is which loop a status is of, for the commands it names: a worktree loop's name
// ("" for the main work tree's loop, started by a plain 'git ralph loop') and, when the
// merge queue left its branch needing review, why (conflict, validation failed).
type Place struct {
	Name   string `json:"loop,omitempty"`
	Review string `json:"needs_review,omitempty"`
}

// StartCommand is the command that starts or resumes the loop, from any work tree.
func (p Place) StartCommand() string {
	if p.Name == "" {
		return "git ralph loop"
	}
	return "git ralph loop --worktree " + p.Name
}

// LoopAt finds which loop runs in the work tree root: the worktree loop there, with its
// merge's need of review, or the main work tree's loop (a zero Place) when none, or when
// the repository's loops cannot be read.
func LoopAt(ctx context.Context, root string) Place {
	members, _, err := fleet.Members(ctx, root)
	if err != nil {
		return Place{}
	}
	for _, m := range members {
		if m.Worktree == nil || m.Gone || filepath.Clean(m.Path) != filepath.Clean(root) {
			continue
		}
		p := Place{Name: m.Name}
		common, err := gitops.CommonDir(ctx, root)
		if err != nil {
			return p
		}
		merge, found, err := history.LoadMerge(common, m.Name)
		if err != nil || !found {
			return p
		}
		tip, _ := gitops.ResolveRef(ctx, root, m.Worktree.Branch)
		var r Run
		if WithMerge(&r, merge, tip); r.State == history.MergeNeedsReview {
			p.Review = r.Reason
		}
		return p
	}
	return Place{}
}

// PrintMerge adds the merge queue's line to `status` for the worktree loop at root,
// when it asked for a merge that still concerns its branch: queued, merging,
// needs-review (with what went wrong) or merged.
func PrintMerge(ctx context.Context, w io.Writer, root string) {
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
		run := Run{}
		if WithMerge(&run, merge, tip); run.State != "" {
			fmt.Fprintf(w, "merge: %s\n", display.Printable(mergeDetail(run, merge)))
		}
	}
}

// mergeDetail is the merge line: the state, what it is about, and what to do.
func mergeDetail(run Run, m history.Merge) string {
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
