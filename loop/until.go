package loop

import (
	"context"
	"fmt"
	"strings"
)

// CauseUntil is the run_finished cause of a run that ended because its promise command
// (--until) passed.
const CauseUntil = "until"

// until runs the promise command after iteration i (record number n), unless none is set
// or the iteration's validation failed: the validation is the gate of every ending, and
// its failure is the next prompt's feedback already.
func (r *runner) until(ctx context.Context, i, n int, val Validation) Validation {
	if strings.TrimSpace(r.cfg.Until) == "" || (val.Ran && !val.Passed) {
		return Validation{Command: r.cfg.Until}
	}
	return r.check(ctx, i, r.cfg.Until, r.journal.store.UntilPath(n))
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
	if u := r.check(ctx, first, r.cfg.Until, ""); !u.Passed || ctx.Err() != nil {
		return false
	}
	r.res.Status, r.res.Cause = StatusSuccess, CauseUntil
	r.res.Reason = fmt.Sprintf("the promise command passed before iteration %d", first)
	return true
}

// judgeUntil applies the promise command's result: passing, it ends the run as
// done whatever the agent printed (even a failed or timed-out attempt: the promise is
// what counts); failing, its output goes into the next prompt, and the agent's SUCCESS
// alone does not end the run.
func (r *runner) judgeUntil(i int, v *verdict, u Validation, judged Judgement) {
	if !u.Ran {
		return
	}
	if u.Passed && r.cfg.Judge != "" && judged.Verdict != VerdictPass {
		// the judge's FAIL (or its missing verdict) stands: the promise ends the run only
		// after an iteration the judge passed, as SUCCESS does; an iteration it did not
		// look at (the agent failed) is no pass either
		return
	}
	if u.Passed {
		// done, as after SUCCESS: also an iteration served on overage (classify stops the
		// run after one that is not done; stopping as limited would have the next loop
		// resume the run and pay for an iteration it no longer needs)
		if v.cause == "overage" {
			v.stop, v.why, v.hint = "", "", ""
		}
		v.outcome, v.reason, v.cause = OutcomeDone, "the promise command passed", CauseUntil
		return
	}
	r.addFeedback(u.UntilFeedback(i))
	r.report(UntilFailed{Iteration: i, Until: u})
	if v.outcome == OutcomeDone {
		v.outcome, v.reason = OutcomeSuccess, "the agent signalled SUCCESS but the promise command failed"
	}
}

// untilSummary is the record's word for the promise command: its result, or why it did
// not run after an iteration that counts; "" when none is set.
func (r *runner) untilSummary(o Outcome, val, u Validation) string {
	switch {
	case strings.TrimSpace(r.cfg.Until) == "":
		return ""
	case u.Ran:
		return u.Summary()
	case o.Counts() && val.Ran && !val.Passed:
		return "not run: validation failed"
	}
	return ""
}
