package loop

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/idle"
)

// verdict is how an iteration ended, as the counters and the stop conditions see it.
type verdict struct {
	outcome Outcome
	reason  string
	stop    Status // set when the run ends after this iteration whatever the counters say
	why     string // the run's stop reason in words, with stop
	hint    string // what the user can do about stop
	cause   string // what stopped the run, where stop has several causes (Result.Cause)
	// agentErr is the agent's own error when its run ended in one although the iteration
	// did not fail (SUCCESS said, then an API error): it is the state's last error all
	// the same, so that status shows what went wrong.
	agentErr string
}

// finish classifies iteration i, validates it, pushes it, records it, and decides
// whether the run stops.
func (r *runner) finish(ctx context.Context, i int, it *iterationRecord, a attempt) error {
	res, promise := a.res, a.promise
	r.newFeedback()
	v := r.classify(i, a, promise)
	var val, until Validation
	var judged Judgement
	if v.outcome.Counts() {
		val = r.validate(ctx, i, r.journal.store.ValidationPath(it.number))
		r.judgeValidation(i, &v, val)
		judged = r.judgeIteration(ctx, i, it, &v, val)
		until = r.until(ctx, i, it.number, val)
		r.judgeUntil(i, &v, until, judged)
	}
	pushed, target := r.autoPush(ctx, i, it, &v, val)
	rec := record(r.res.Run, i, r.cfg.Mode, it.started, r.deps.Now(), res, v.outcome, promise)
	if res.Silent {
		rec.Stopped = silentReason(r.cfg.OutputTimeout)
	}
	fillRecord(&rec, a, val, pushed, r.cfg.Agent.Name)
	if v.outcome == OutcomeFailure || v.outcome == OutcomeHalted {
		rec.OutputExcerpt = outputExcerpt(res.Output, res.OutputBytes)
	}
	rec.Until = r.untilSummary(v.outcome, val, until)
	rec.Judge = judged.Record()
	rec.Replayed = r.cfg.Replay
	var watched idle.Verdict
	judge := func(after gitops.Checkpoint, rec *history.Record) {
		watched = r.idle.Finished(idle.Iteration{Before: r.here, After: after, Ending: ending(v.outcome),
			Message: a.final, Failure: val.failure()})
		rec.Similarity = similarityRecord(watched.Repetition)
		r.stagnation(i, &v, watched.Repetition, rec.Similarity)
	}
	bctx, stop := bookkeeping(ctx, r.grace(), r.deps.Hurry)
	after, rec, err := r.journal.finish(bctx, it, res, rec, judge)
	noted := ""
	if err == nil {
		noted = r.note(bctx, rec)
	}
	stop()
	if err != nil && ctx.Err() != nil {
		r.report(Warning{Message: fmt.Sprintf("iteration %d: its record is incomplete: %v", i, err)})
		r.res.Status = StatusInterrupted
		return nil
	}
	if err != nil {
		return err
	}
	if target != nil {
		r.pushNotes(ctx, i, *target)
	}
	r.prune(context.WithoutCancel(ctx), rec.Iteration)
	r.here = after
	if v.stop != "" && v.stop != StatusAborted {
		r.res.Record, r.res.Hint = rec.Iteration, v.hint
	}
	r.count(v, watched.Stop)
	r.journal.state.SpentIterations++ // its spend is in the sums: the mean per iteration counts it
	r.warnNoUsage(a.usage)
	if v.outcome.Counts() {
		r.res.Iterations++
		r.res.Last = i
		r.res.Stats.Add(res.Duration)
	}
	if err := r.saveIteration(i, v.outcome, after); err != nil {
		return err
	}
	r.report(IterationFinished{Iteration: i, Max: r.cfg.MaxIterations, At: r.deps.Now(),
		Duration: res.Duration, Outcome: v.outcome, Reason: v.reason, Promise: promise,
		ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut,
		Consecutive: r.res.Consecutive, Threshold: r.cfg.MaxConsecutiveErrors,
		OutputBytes: res.OutputBytes, Survivors: res.Survivors, Record: rec,
		Progress: watched.Progress, Idle: r.idle.Idle, IdleThreshold: r.cfg.IdleThreshold,
		Validation: val, Until: until, Push: pushed, Note: noted})
	return nil
}

// classify applies the outcome matrix to the agent's last attempt, with what its
// output reader found: a fatal error or a limit the loop will not wait out stops the
// run, and an agent that reports an error fails even with exit code 0 (codex, claude).
func (r *runner) classify(i int, a attempt, promise Promise) verdict {
	res := a.res
	outcome, reason := Classify(res, promise)
	switch {
	case res.Silent:
		reason = silentReason(r.cfg.OutputTimeout)
	case res.TimedOut:
		reason = fmt.Sprintf("timed out after %s", r.cfg.Timeout)
	case outcome == OutcomeInterrupted:
	case a.stop != "":
		kept := a.stopWhy
		if a.stopKept != "" {
			kept = a.stopKept
		}
		return verdict{outcome: OutcomeHalted, reason: kept, stop: a.stop, why: a.stopWhy, hint: a.stopHint, cause: a.stopCause}
	case a.read.IsError && outcome == OutcomeSuccess:
		outcome, reason = OutcomeFailure, "the agent reported an error"
	case outcome == OutcomeFailure && promise == PromiseNone && res.Signal == 0:
		reason = r.exitReason(res.ExitCode)
	}
	if outcome == OutcomeFailure && !res.TimedOut && res.Signal == 0 && promise == PromiseNone && a.read.Error != "" {
		reason += ": " + oneLine(a.read.Error, maxReasonError)
	}
	v := verdict{outcome: outcome, reason: reason}
	if outcome == OutcomeDone && a.read.IsError && a.read.Error != "" {
		v.agentErr = "the agent's run ended in an error after it signalled SUCCESS: " + a.read.Error
	}
	// on the run's last iteration the run ends anyway, as max-iters: no wait to save
	if a.overage && r.cfg.StopOnOverage && outcome.Counts() && outcome != OutcomeDone && i != r.cfg.MaxIterations {
		r.stopOnOverage(&v, a.planResets)
	}
	return v
}

// stopOnOverage stops the run after an iteration served on paid extra usage. When the
// agent said when the plan's window resets, that is saved as a limit's wait: the next
// loop waits for it (or stops at once while it is further than max_limit_wait) instead
// of paying for one more iteration on overage each time it starts.
func (r *runner) stopOnOverage(v *verdict, planResets time.Time) {
	v.stop, v.cause = StatusLimited, "overage"
	v.why = "the agent was served on paid extra usage (overage), and stop_on_overage is set"
	if !planResets.After(r.deps.Now()) {
		v.hint = "the iteration counted; the agent stated no reset of its plan's window still to come, so the next 'git ralph loop' goes on, and stops again after an iteration served on overage; set stop_on_overage = false in your own config (or RALPH_STOP_ON_OVERAGE=false) to go on paying for extra usage"
		return
	}
	st := &r.journal.state
	planResets = planResets.Add(min(resetMargin, r.backoffMax())) // as for a limit's stated reset
	st.WaitUntil, st.LimitMessage = planResets, "stop_on_overage: the plan's window is spent, and the agent is served only on paid extra usage until it resets"
	v.hint = fmt.Sprintf("the iteration counted; the next 'git ralph loop' waits for the plan's window to reset at %s before it runs the agent; set stop_on_overage = false in your own config (or RALPH_STOP_ON_OVERAGE=false) to go on paying for extra usage",
		planResets.Local().Format("2006-01-02 15:04:05"))
}

// judgeValidation applies the validate command's result: SUCCESS ends the run only when
// validation passes, and a failure goes into the next prompt. A failed validation is not
// an agent error: the counters see the agent's own outcome.
func (r *runner) judgeValidation(i int, v *verdict, val Validation) {
	if !val.Ran || val.Passed {
		return
	}
	r.addFeedback(val.Feedback(i))
	r.report(ValidationFailed{Iteration: i, Validation: val})
	if v.outcome == OutcomeDone {
		v.outcome, v.reason = OutcomeSuccess, "the agent signalled SUCCESS but validation failed"
	}
}

// autoPush pushes HEAD when configured, after an iteration that moved it and passed
// validation. A failed push counts as a failed iteration; after SUCCESS it ends the run
// as aborted, since the work is done but did not reach the remote. It returns the push's
// result in words, and where it pushed when it did (the ledger's notes follow).
func (r *runner) autoPush(ctx context.Context, i int, it *iterationRecord, v *verdict, val Validation) (string, *gitpush.PushTarget) {
	if !r.cfg.Push || !v.outcome.Counts() || (val.Ran && !val.Passed) {
		return "", nil
	}
	head, err := gitops.Head(ctx, r.cfg.Dir)
	if err != nil || head == it.before.Head || head == "" {
		return "", nil
	}
	target, err := gitpush.ResolvePushTarget(ctx, r.cfg.Dir, r.cfg.Remote, r.cfg.Branch)
	if err == nil {
		err = r.scanBeforePush(ctx, head, target)
	}
	if err == nil {
		err = gitpush.Push(ctx, r.cfg.Dir, target)
	}
	r.report(Pushed{Iteration: i, Target: target.String(), Commit: head, Err: err})
	if err == nil {
		return "pushed to " + target.String(), &target
	}
	if v.outcome == OutcomeDone {
		v.stop, v.why, v.cause = StatusAborted, "the agent signalled SUCCESS, but the push failed: "+err.Error(), "push_failed"
	}
	v.outcome, v.reason = OutcomeFailure, "push failed: "+err.Error()
	r.addFeedback(pushFeedback(i, target.String(), err))
	return "failed: " + err.Error(), nil
}

// scanBeforePush refuses to push commits that add secrets (see ScanPush): what the remote
// has not seen yet, from HEAD. The allow list is the one read when the run started, under
// trust: an agent that writes its own entries into .ralph/secrets-allow changes nothing.
func (r *runner) scanBeforePush(ctx context.Context, head string, target gitpush.PushTarget) error {
	warning, err := ScanPush(ctx, r.cfg.Dir, []string{head}, nil, target.Remote, r.cfg.SecretsAllow)
	if warning != "" {
		r.report(Warning{Message: warning})
	}
	var found *SecretsFound
	if errors.As(err, &found) {
		return fmt.Errorf("%w\nhow to proceed: %s", err, found.Hint())
	}
	return err
}

// fillRecord adds to an iteration's record what the attempts, validation and push did.
// Its tokens and cost are summed over every attempt, retried and limited ones included:
// each was paid for.
func fillRecord(rec *history.Record, a attempt, val Validation, pushed, preset string) {
	rec.RateLimitWaits, rec.Retries, rec.WaitedMS = a.limitWaits, a.retries, a.waited.Milliseconds()
	rec.Validation, rec.Push, rec.Agent = val.Summary(), pushed, preset
	u := a.usage
	rec.Model, rec.InputTokens, rec.OutputTokens = u.Model, u.InputTokens, u.OutputTokens
	rec.CacheRead, rec.CacheWrite = u.CacheReadTokens, u.CacheWriteTokens
	if u.HasCost {
		rec.CostUSD, rec.CostReported = u.CostUSD, true
	}
	rec.Overage = a.overage
	if o := Outcome(rec.Outcome); o == OutcomeFailure || o == OutcomeHalted {
		rec.Error = bounded(a.read.Error)
	}
	if len(a.tries) > 1 {
		rec.Attempts = a.tries
	}
}

// count updates the failure counter and sets the run's status when it, the idle watch
// (idleStop), the agent's SUCCESS, or the verdict itself ends it.
func (r *runner) count(v verdict, idleStop bool) {
	switch v.outcome {
	case OutcomeInterrupted:
		r.res.Status = StatusInterrupted
		return
	case OutcomeHalted:
		r.res.Status, r.res.Reason, r.res.Cause = v.stop, v.why, v.cause
		r.journal.state.LastError = oneLine(v.reason, maxErrorText)
		return
	case OutcomeFailure:
		r.res.Consecutive++
		r.journal.state.ErrorCount++
		r.journal.state.LastError = oneLine(v.reason, maxErrorText)
	default:
		r.res.Consecutive = 0
		if v.agentErr != "" {
			r.journal.state.LastError = oneLine(v.agentErr, maxErrorText)
		}
	}
	r.res.Idle = r.idle.Idle
	switch {
	case v.stop != "":
		r.res.Status, r.res.Reason, r.res.Cause = v.stop, v.why, v.cause
	case v.outcome == OutcomeDone:
		r.res.Status, r.res.Cause = StatusSuccess, v.cause
	case r.res.Consecutive >= r.cfg.MaxConsecutiveErrors:
		r.res.Status = StatusAborted
	case idleStop:
		r.res.Status = StatusIdle
	}
}

// ending tells the idle watch how an iteration ended: it decides what that means for
// progress (a failure that changed nothing is not idle).
func ending(o Outcome) idle.Ending {
	switch {
	case !o.Counts():
		return idle.Uncounted
	case o == OutcomeFailure:
		return idle.Failed
	}
	return idle.Succeeded
}

// silentReason is why an iteration failed whose agent the silent-agent watchdog stopped
// (output_timeout).
func silentReason(limit time.Duration) string {
	return fmt.Sprintf("no output for %s", limit)
}
