package loop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/idle"
)

// finish ends iteration i in three steps: check (its classification, then the validate
// command, the judge, the promise command and the push), record (the checkpoint after,
// the diff, the record with the idle watch's observation, the ledger's note) and tally
// (the counters, the state, the IterationFinished event).
func (r *runner) finish(ctx context.Context, i int, it *iterationRecord, a attempt) error {
	ch := r.check(ctx, i, it, a)
	rc, ok, err := r.record(ctx, i, it, a, &ch)
	if err != nil || !ok {
		return err
	}
	return r.tally(i, a, ch, rc)
}

// checked is what the check step found of an iteration.
type checked struct {
	class  classification
	val    Validation // the validate command; Ran is false when none is set or it did not run
	until  Validation // the promise command, likewise
	judged Judgement  // Ran is false when no judge looked at it
	pushed string     // the push's result in words; "": nothing pushed
	target *gitpush.Target
}

// check classifies iteration i from its agent's last attempt, then runs what weighs it
// after the agent, each where the one before lets it: the validate command, the judge, the
// promise command, and the push.
func (r *runner) check(ctx context.Context, i int, it *iterationRecord, a attempt) checked {
	ch := checked{class: classify(r.cfg, a)}
	if r.guarded(ctx, i, it, &ch.class) {
		return ch // rolled back: nothing of it to validate, judge or push
	}
	o := ch.class.outcome
	// on the run's last iteration the run ends anyway, as max-iters: no wait to save
	if a.overage && r.cfg.StopOnOverage && o.Counts() && o != OutcomeDone && i != r.cfg.MaxIterations {
		ch.class.halt = r.waits.overage(a.planResets)
	}
	if o.Counts() {
		ch.val = r.base.validate(ctx, i, r.book.store.ValidationPath(it.number))
		if ch.class.applyValidation(i, ch.val) {
			r.report(ValidationFailed{Iteration: i, Validation: ch.val})
		}
		ch.judged = r.judged(ctx, i, it, &ch.class, ch.val)
		ch.until = Validation{Command: r.cfg.Until}
		if r.cfg.untilRuns(ch.val) {
			ch.until = r.procs.validate(ctx, i, r.cfg.Until, r.book.store.UntilPath(it.number), r.cfg.validateTimeout())
		}
		if ch.class.applyUntil(i, ch.until, r.judge != nil, ch.judged) {
			r.report(UntilFailed{Iteration: i, Until: ch.until})
		}
	}
	if r.push != nil {
		ch.pushed, ch.target = r.push.push(ctx, i, it.before.Head, &ch.class, ch.val)
	}
	return ch
}

// judged asks the judge about iteration i, when one is set and the iteration is one to
// judge, counts its spend and applies its verdict (applyJudgement). An iteration whose
// SUCCESS the judge did not see for an interrupt is never done unjudged.
func (r *runner) judged(ctx context.Context, i int, it *iterationRecord, class *classification, val Validation) Judgement {
	if !r.judge.looksAt(ctx, *class, val) {
		if r.judge != nil && class.outcome == OutcomeDone && ctx.Err() != nil {
			class.outcome, class.reason = OutcomeSuccess, "the agent signalled SUCCESS but the run was interrupted before the judge"
		}
		return Judgement{}
	}
	j := r.judge.ask(ctx, i, it.before, val, r.book.store.JudgePath(it.number))
	r.budget.spend(r.state, j.Usage) // like an agent's attempt: the run's spend and the day's
	r.report(Judged{Iteration: i, Judgement: j})
	class.applyJudgement(i, j, val.Ran)
	return j
}

// recorded is what the record step kept of an iteration.
type recorded struct {
	rec     history.Record
	after   gitops.Checkpoint
	watched idle.Observation
	noted   string // the commit its ledger note went on; "": none
}

// record takes the checkpoint after iteration i, saves its diff and record (with what
// the idle watch observed, which may stop the run as stagnant) and its ledger note, sends
// the notes after a pushed branch and applies the retention. It reports false when an
// interrupt left the record incomplete: the run then stops as interrupted.
func (r *runner) record(ctx context.Context, i int, it *iterationRecord, a attempt, ch *checked) (recorded, bool, error) {
	var rc recorded
	rec := newRecord(r.cfg, r.res.Run, i, it.started, r.deps.Now(), a, *ch)
	observe := func(after gitops.Checkpoint, rec *history.Record) {
		rc.watched = r.idle.Finished(idle.Iteration{Before: r.here, After: after, Ending: ending(ch.class.outcome),
			Message: a.final, Failure: ch.val.failure()})
		rec.Similarity = similarityRecord(rc.watched.Repetition)
		if warning := ch.class.stagnation(i, rc.watched.Repetition, rec.Similarity, r.cfg.StagnationSimilarity); warning != "" {
			r.warn(warning)
		}
	}
	bctx, stop := bookkeeping(ctx, graceOf(r.deps.Grace), r.deps.Hurry)
	after, rec, err := r.book.finish(bctx, it, a.res, rec, observe)
	if err == nil {
		rc.noted = r.notes.note(bctx, rec)
	}
	stop()
	switch {
	case err != nil && ctx.Err() != nil:
		r.warn(fmt.Sprintf("iteration %d: its record is incomplete: %v", i, err))
		r.res.Status = StatusInterrupted
		return rc, false, nil
	case err != nil:
		return rc, false, err
	}
	if ch.target != nil {
		r.notes.push(ctx, i, *ch.target)
	}
	if err := r.book.prune(context.WithoutCancel(ctx), rec.Iteration); err != nil {
		r.warn(fmt.Sprintf("cannot prune the history: %v", err))
	}
	r.here, rc.rec, rc.after = after, rec, after
	return rc, true, nil
}

// tally counts iteration i: the failure counter and the run's status (count), its spend
// and timing, the state saved with its feedback, and the IterationFinished event.
func (r *runner) tally(i int, a attempt, ch checked, rc recorded) error {
	class, res := ch.class, a.res
	if class.stop != "" && class.stop != StatusAborted {
		r.res.Record, r.res.Hint = rc.rec.Iteration, class.hint
	}
	class.count(&r.res, &r.state.State, r.idle.Idle, rc.watched.Stop, r.cfg.MaxConsecutiveErrors)
	r.state.SpentIterations++ // its spend is in the sums: the mean per iteration counts it
	r.budget.warnNoUsage(r.state, r.cfg.Agent.Name == "", a.usage)
	if class.outcome.Counts() {
		r.res.Iterations++
		r.res.Last = i
		r.res.Stats.Add(res.Duration)
	}
	if err := r.saveIteration(i, class, rc.after); err != nil {
		return err
	}
	r.report(IterationFinished{Iteration: i, Max: r.cfg.MaxIterations, At: r.deps.Now(),
		Duration: res.Duration, Outcome: class.outcome, Reason: class.reason, Promise: a.promise,
		ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut,
		Consecutive: r.res.Consecutive, Threshold: r.cfg.MaxConsecutiveErrors,
		OutputBytes: res.OutputBytes, Survivors: res.Survivors, Record: rc.rec,
		Progress: rc.watched.Progress, Idle: r.idle.Idle, IdleThreshold: r.cfg.IdleThreshold,
		Validation: ch.val, Until: ch.until, Push: ch.pushed, Note: rc.noted})
	return nil
}

// newRecord is iteration i's history record, without the git parts the logbook adds:
// how its agent ran (every attempt summed, fillRecord) and what the checks found.
func newRecord(cfg Config, run string, i int, started, ended time.Time, a attempt, ch checked) history.Record {
	res, outcome := a.res, ch.class.outcome
	rec := history.Record{Run: run, RunIteration: i, Mode: cfg.Mode, StartedAt: started, EndedAt: ended,
		DurationMS: res.Duration.Milliseconds(), ExitCode: res.ExitCode, Outcome: string(outcome),
		Signal: string(a.promise), TimedOut: res.TimedOut}
	if res.Signal != 0 {
		rec.KilledBy = SignalName(res.Signal)
	}
	if res.Silent {
		rec.Stopped = silentReason(cfg.OutputTimeout)
	}
	fillRecord(&rec, a, ch.val, ch.pushed, cfg.Agent.Name)
	if outcome == OutcomeProtected {
		rec.Error = ch.class.reason
	}
	if outcome == OutcomeFailure || outcome == OutcomeHalted {
		rec.OutputExcerpt = outputExcerpt(res.Output, res.OutputBytes)
	}
	rec.Until = untilSummary(cfg.Until, outcome, ch.val, ch.until)
	rec.Judge = ch.judged.Record()
	rec.Replayed = cfg.Replay
	return rec
}

// fillRecord adds to an iteration's record what the attempts, validation and push did.
// Its tokens and cost are summed over every attempt, retried and limited ones included:
// each was paid for.
func fillRecord(rec *history.Record, a attempt, val Validation, pushed, preset string) {
	rec.RateLimitWaits, rec.Retries, rec.WaitedMS = a.limitWaits, a.retries, a.waited.Milliseconds()
	rec.Validation, rec.Push, rec.Agent = val.Summary(), pushed, preset
	if t := val.Tests; t != nil {
		rec.NewFailures, rec.OldFailures = listTests(t.New), listTests(t.Old)
	}
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

// untilSummary is the record's word for the promise command (until): its result, or
// why it did not run after an iteration that counts; "" when none is set.
func untilSummary(until string, o Outcome, val, u Validation) string {
	switch {
	case strings.TrimSpace(until) == "":
		return ""
	case u.Ran:
		return u.Summary()
	case o.Counts() && val.Ran && !val.Passed:
		return "not run: validation failed"
	}
	return ""
}

// silentReason is why an iteration failed whose agent the silent-agent watchdog stopped
// (output_timeout).
func silentReason(limit time.Duration) string {
	return fmt.Sprintf("no output for %s", limit)
}
