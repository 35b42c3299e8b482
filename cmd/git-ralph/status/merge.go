package status

import "github.com/git-ralph/git-ralph/history"

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
