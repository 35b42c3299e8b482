package loop

import (
	"fmt"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/idle"
)

// classification is how an iteration ended, as the counters and the stop conditions see
// it, and what the next prompt is told of it. The check step builds it (classify, then
// the validate command, the judge, the promise command and the push apply their results),
// the record step adds the stagnation check's, and the tally counts it.
type classification struct {
	outcome Outcome
	reason  string
	// halt is set (stop) when the run ends after this iteration whatever the counters
	// say; its cause is set also when a done iteration's ending has a cause of its own
	halt
	// agentErr is the agent's own error when its run ended in one although the iteration
	// did not fail (SUCCESS said, then an API error): it is the state's last error all
	// the same, so that status shows what went wrong.
	agentErr string
	// feedback is what the checks found wrong (validation, the judge, the promise command,
	// a push, a nudge), for the next prompt. It goes into the state only with the
	// iteration itself (saveIteration): the state is saved meanwhile (the judge's spend),
	// and a loop killed then resumes with the last saved iteration's feedback.
	feedback string
}

// addFeedback adds text to the iteration's feedback.
func (c *classification) addFeedback(text string) { c.feedback = joinFeedback(c.feedback, text) }

// classify applies the outcome matrix to the agent's last attempt, with what its
// output reader found: a fatal error or a limit the loop will not wait out stops the
// run, and an agent that reports an error fails even with exit code 0 (codex, claude).
func classify(cfg Config, a attempt) classification {
	res, promise := a.res, a.promise
	outcome, reason := Classify(res, promise)
	switch {
	case res.Silent:
		reason = silentReason(cfg.OutputTimeout)
	case res.TimedOut:
		reason = fmt.Sprintf("timed out after %s", cfg.Timeout)
	case outcome == OutcomeInterrupted:
	case a.stop != "":
		kept := a.why
		if a.haltKept != "" {
			kept = a.haltKept
		}
		return classification{outcome: OutcomeHalted, reason: kept, halt: a.halt}
	case a.read.IsError && outcome == OutcomeSuccess:
		outcome, reason = OutcomeFailure, "the agent reported an error"
	case outcome == OutcomeFailure && promise == PromiseNone && res.Signal == 0:
		reason = cfg.exitReason(res.ExitCode)
	}
	if outcome == OutcomeFailure && !res.TimedOut && res.Signal == 0 && promise == PromiseNone && a.read.Error != "" {
		reason += ": " + oneLine(a.read.Error, maxReasonError)
	}
	c := classification{outcome: outcome, reason: reason}
	if outcome == OutcomeDone && a.read.IsError && a.read.Error != "" {
		c.agentErr = "the agent's run ended in an error after it signalled SUCCESS: " + a.read.Error
	}
	return c
}

// applyValidation applies the validate command's result to iteration i: SUCCESS ends
// the run only when validation passes, and a failure goes into the next prompt. A failed
// validation is not an agent error: the counters see the agent's own outcome. It reports
// whether the validation failed.
func (c *classification) applyValidation(i int, val Validation) bool {
	if !val.Ran || val.Passed {
		return false
	}
	c.addFeedback(val.Feedback(i))
	if c.outcome == OutcomeDone {
		c.outcome, c.reason = OutcomeSuccess, "the agent signalled SUCCESS but validation failed"
	}
	return true
}

// applyJudgement applies the judge's answer about iteration i (validated: a validate
// command passed before it): FAIL puts its reasons into the next prompt and keeps SUCCESS
// from ending the run; no verdict fails the iteration, so that a broken judge stops the
// run after max_consecutive_errors instead of passing work.
func (c *classification) applyJudgement(i int, j Judgement, validated bool) {
	switch {
	case j.Verdict == VerdictPass:
	case j.Verdict == VerdictFail:
		c.addFeedback(j.feedback(i, validated))
		if c.outcome == OutcomeDone {
			c.outcome, c.reason = OutcomeSuccess, "the agent signalled SUCCESS but the judge said FAIL"
		}
	case !j.Ran: // interrupted: the run stops as interrupted, never as done
		if c.outcome == OutcomeDone {
			c.outcome, c.reason = OutcomeSuccess, "the agent signalled SUCCESS but the judge was interrupted"
		}
	default:
		c.outcome, c.reason = OutcomeFailure, "the judge gave no verdict: "+oneLine(j.Error, maxReasonError)
	}
}

// count updates the failure counter (res.Consecutive, the state's error count and last
// error) and sets the run's status when it, the idle watch (idleStop), the agent's
// SUCCESS, or the classification itself ends it; idle is the idle watch's count.
func (c classification) count(res *Result, st *history.State, idle int, idleStop bool, maxErrors int) {
	switch c.outcome {
	case OutcomeInterrupted:
		res.Status = StatusInterrupted
		return
	case OutcomeHalted:
		res.Status, res.Reason, res.Cause = c.stop, c.why, c.cause
		st.LastError = oneLine(c.reason, maxErrorText)
		return
	case OutcomeFailure, OutcomeProtected:
		res.Consecutive++
		st.ErrorCount++
		st.LastError = oneLine(c.reason, maxErrorText)
	default:
		res.Consecutive = 0
		if c.agentErr != "" {
			st.LastError = oneLine(c.agentErr, maxErrorText)
		}
	}
	res.Idle = idle
	switch {
	case c.stop != "":
		res.Status, res.Reason, res.Cause = c.stop, c.why, c.cause
	case c.outcome == OutcomeDone:
		res.Status, res.Cause = StatusSuccess, c.cause
	case res.Consecutive >= maxErrors:
		res.Status = StatusAborted
	case idleStop:
		res.Status = StatusIdle
	}
}

// stagnation acts on the stagnation check's finding about iteration i: a first repeat
// puts a nudge into the next prompt (and returns the warning that says so); a repeat
// after it stops the run. An iteration that ends the run anyway (SUCCESS, a limit, a
// failure the breaker counts) is left alone. similarity is stagnation_similarity, for the hint.
func (c *classification) stagnation(i int, rep idle.Repetition, sim *history.Similarity, similarity int) string {
	if c.stop != "" || c.outcome != OutcomeSuccess {
		return ""
	}
	switch {
	case rep.Stop:
		c.stop, c.cause = StatusStagnant, rep.Cause()
		c.why = fmt.Sprintf("iteration %d repeated the same attempt after the agent was told to try another approach: %s", i, rep.Repeated())
		c.hint = fmt.Sprintf("look at what the last iterations did ('git ralph history', 'git ralph logs N'), then change the prompt or the plan, or fix what blocks the agent; "+
			"--stagnation-threshold 0 (or stagnation_threshold = 0 in your own config) turns this check off, and stagnation_similarity (now %d %%) sets how alike counts as the same", similarity)
	case rep.Nudge:
		sim.Nudged = true
		c.addFeedback(nudge(rep))
		return fmt.Sprintf("iteration %d repeated the same attempt (%s): the next prompt asks the agent to try another approach", i, rep.Repeated())
	}
	return ""
}

// ending tells the idle watch how an iteration ended: it decides what that means for
// progress (a failure that changed nothing is not idle).
func ending(o Outcome) idle.Ending {
	switch {
	case !o.Counts():
		return idle.Uncounted
	case o == OutcomeFailure || o == OutcomeProtected:
		return idle.Failed
	}
	return idle.Succeeded
}
