package idle

import "github.com/git-ralph/git-ralph/gitops"

// Progress reports whether an iteration changed anything: HEAD moved (a commit, an amend, a
// reset, a branch switch) or the working tree's content changed, uncommitted edits included.
func Progress(before, after gitops.Checkpoint) bool {
	return before.Head != after.Head || before.Tree != after.Tree
}

// Counter counts consecutive iterations without progress.
type Counter struct {
	Threshold int // stop after this many idle iterations in a row; 0 never stops
	Idle      int // idle iterations since the last progress
}

// Observe records one iteration's outcome and reports whether the loop should stop.
func (c *Counter) Observe(progress bool) (stop bool) {
	if progress {
		c.Idle = 0
	} else {
		c.Idle++
	}
	return c.Threshold > 0 && c.Idle >= c.Threshold
}
