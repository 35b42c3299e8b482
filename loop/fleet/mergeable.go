package fleet

import (
	"fmt"

	"github.com/git-ralph/git-ralph/history"
)

// Mergeable says whether a ranked candidate may be picked for a merge, and when not,
// why: it ran an iteration (else it has nothing of its own to merge), no process runs it
// (pid is its lock holder's, 0 for none), and the merge queue is not merging it nor done
// with it (state is the loop's, with the queue's word over it, as `runs` shows it). The
// views offer the pick by it and the pick itself refuses by it, so the two never differ.
func Mergeable(f Figures, pid int, state string) error {
	switch {
	case !f.Ran():
		return &Error{Err: fmt.Errorf("the candidate %s ran no iteration: it has nothing to merge", f.Name),
			Advice: "pick a candidate that ran ('git ralph runs' lists them)"}
	case pid != 0:
		return &Error{Err: fmt.Errorf("the candidate %s is running (pid %d)", f.Name, pid),
			Advice: fmt.Sprintf("pick it once it has ended ('git ralph status --loop %s' says where it is)", f.Name)}
	case state == history.MergeQueued || state == history.MergeMerging:
		return &Error{Err: fmt.Errorf("the merge queue is already merging %s (%s)", f.Name, state),
			Advice: "wait until it is done ('git ralph runs' shows it)"}
	case state == history.MergeMerged:
		return &Error{Err: fmt.Errorf("the candidate %s is already merged", f.Name),
			Advice: "nothing is left to merge; 'git ralph runs' shows it"}
	}
	return nil
}
