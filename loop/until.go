package loop

import (
	"context"
	"fmt"
	"strings"
)

// CauseUntil is the run_finished cause of a run that ended because its promise command
// (--until) passed.
const CauseUntil = "until"

// untilRuns reports whether the promise command runs after an iteration whose validation
// ended as val: one is set, and the validation did not fail (the validation is the gate
// of every ending, and its failure is the next prompt's feedback already).
func (c Config) untilRuns(val Validation) bool {
	return strings.TrimSpace(c.Until) != "" && (!val.Ran || val.Passed)
}

// promiseHolds runs the promise command before iteration first, the first of this
// invocation, and ends the run as done when it passes already: a goal that holds costs
// no iteration (none is numbered, none counts). A resumed run is checked too: its
// last iteration may have met the promise just before the run was interrupted, or the
// user may have done the rest meanwhile. An interrupted check says nothing: the run
// stops as interrupted before iteration first.
func (r *runner) promiseHolds(ctx context.Context, first int) bool {
	if strings.TrimSpace(r.cfg.Until) == "" {
		return false
	}
	if u := r.procs.validate(ctx, first, r.cfg.Until, "", r.cfg.validateTimeout()); !u.Passed || ctx.Err() != nil {
		return false
	}
	r.res.Status, r.res.Cause = StatusSuccess, CauseUntil
	r.res.Reason = fmt.Sprintf("the promise command passed before iteration %d", first)
	return true
}

// applyUntil applies the promise command's result u to iteration i: passing, it ends the
// run as done whatever the agent printed (even a failed or timed-out attempt: the promise
// is what counts); failing, its output goes into the next prompt, and the agent's SUCCESS
// alone does not end the run. With a judge (judging), the promise ends the run only after
// an iteration the judge passed. It reports whether the promise command failed.
func (c *classification) applyUntil(i int, u Validation, judging bool, judged Judgement) bool {
	if !u.Ran {
		return false
	}
	if u.Passed && judging && judged.Verdict != VerdictPass {
		// the judge's FAIL (or its missing verdict) stands: the promise ends the run only
		// after an iteration the judge passed, as SUCCESS does; an iteration it did not
		// look at (the agent failed) is no pass either
		return false
	}
	if u.Passed {
		// done, as after SUCCESS: also an iteration served on overage (check stops the run
		// after one that is not done; stopping as limited would have the next loop resume
		// the run and pay for an iteration it no longer needs)
		if c.cause == "overage" {
			c.stop, c.why, c.hint = "", "", ""
		}
		c.outcome, c.reason, c.cause = OutcomeDone, "the promise command passed", CauseUntil
		return false
	}
	c.addFeedback(u.UntilFeedback(i))
	if c.outcome == OutcomeDone {
		c.outcome, c.reason = OutcomeSuccess, "the agent signalled SUCCESS but the promise command failed"
	}
	return true
}
