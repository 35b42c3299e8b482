package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/loop/recording"
)

// Defaults of the waits between attempts.
const (
	DefaultBackoffBase  = time.Second
	DefaultBackoffMax   = 60 * time.Second
	DefaultMaxLimitWait = 6 * time.Hour
	// transientRetries is how many quick retries a transient error (overloaded, 5xx) gets
	// before the attempt counts as a failed iteration.
	transientRetries = 3
	// resetMargin is added to a stated reset time: the times agents print are rounded
	// (to the minute or hour), so a retry at the exact second may find the limit still on.
	resetMargin = 30 * time.Second
)

// attempt is the agent's last run for one iteration, after any retries.
type attempt struct {
	res        agent.Result
	read       agentcli.Report
	promise    Promise           // the promise in the last run's words
	final      string            // the end of the last run's last words, for the stagnation check
	tries      []history.Attempt // every run's figures, the last one last
	usage      agentcli.Usage    // the tokens and cost of every run, summed: each was paid for
	overage    bool              // a run was served on paid extra usage
	planResets time.Time         // when the plan's window resets, as the overage runs stated it
	limitWaits int               // attempts that hit a usage or rate limit
	retries    int               // attempts retried after a transient error
	waited     time.Duration     // time spent waiting between attempts
	stop       Status            // StatusLimited or StatusFatal: the run stops after this iteration
	stopWhy    string
	stopKept   string // stopWhy as the record and last_error keep it: "" when the same
	stopHint   string // what the user can do about stop
	stopCause  string // what stopped the run, where stop has several causes (Result.Cause)
}

// add keeps the figures of run n, whose result is res and whose output read says.
func (a *attempt) add(n int, res agent.Result, read agentcli.Report) {
	u := read.Usage
	a.tries = append(a.tries, history.Attempt{Attempt: n, ExitCode: res.ExitCode,
		DurationMS: res.Duration.Milliseconds(), Model: u.Model, InputTokens: u.InputTokens,
		OutputTokens: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens,
		CostUSD: u.CostUSD, Overage: read.Overage, Error: bounded(read.Error)})
	a.usage.InputTokens += u.InputTokens
	a.usage.OutputTokens += u.OutputTokens
	a.usage.CacheReadTokens += u.CacheReadTokens
	a.usage.CacheWriteTokens += u.CacheWriteTokens
	a.usage.CostUSD += u.CostUSD
	a.usage.HasCost = a.usage.HasCost || u.HasCost
	a.usage.CachedInInput = a.usage.CachedInInput || u.CachedInInput
	if u.Model != "" {
		a.usage.Model = u.Model
	}
	a.overage = a.overage || read.Overage
	if read.OverageUntil.After(a.planResets) {
		a.planResets = read.OverageUntil
	}
}

// maxErrorText bounds the agent's error text kept in a record and the state.
const maxErrorText = 2000

// bounded is s cut to maxErrorText bytes, at a rune boundary.
func bounded(s string) string { return cutRedacted(strings.TrimSpace(s), maxErrorText) }

// attempts runs the agent for iteration i until an attempt counts: a limited attempt is
// not an iteration and not an error, so the same iteration runs again after a wait; a
// transient error gets a few quick retries. An attempt whose words carry a promise is
// never run again: SUCCESS or FAILURE is the agent's verdict on the work, and an error
// after it (an API 500 as it wrapped up) does not undo the work in git. Every attempt's
// output goes to the same log.
func (r *runner) attempts(ctx context.Context, i int, it *iterationRecord, prompt string) (attempt, error) {
	var a attempt
	for n := 1; ; n++ {
		if n > 1 && !r.waitSharedRetry(ctx, i, &a) {
			a.res.Interrupted = true
			return a, nil
		}
		if n > 1 && r.budgetBeforeRetry(&a) { // after every wait: other loops spend meanwhile
			return a, nil
		}
		take := r.beginTake(ctx, i, n, prompt)
		res, err := r.runAgent(ctx, i, it, prompt, take)
		if err != nil {
			take.Discard()
			return a, err
		}
		a.res, a.read = res, r.readOutput(res)
		r.endTake(ctx, take, res, a.read)
		if a.read.Account != "" {
			r.account, r.journal.state.AgentAccount = a.read.Account, a.read.Account
		}
		a.promise = ScanPromise(withoutEcho(a.read.Said, prompt))
		a.final = finalWords(a.read.Final, prompt)
		a.add(n, res, a.read)
		r.spend(res, a.read.Usage)
		if res.Interrupted || res.TimedOut || a.promise != PromiseNone {
			return a, nil
		}
		until, kind, msg := r.retryPlan(&a)
		if kind == "" {
			return a, nil
		}
		a.tries[len(a.tries)-1].Retried = kind
		// one line, so that the log shows (and a reader finds) where the next attempt begins
		fmt.Fprintf(it.output, "\n[git-ralph: attempt %d: %s: %s; retrying at %s]\n", n, kind, oneLine(msg, maxErrorText), until.Format(time.RFC3339))
		began := r.deps.Now()
		ok := r.wait(ctx, Waiting{Iteration: i, Kind: kind, Message: msg, Until: until, Attempt: a.limitWaits + a.retries})
		a.waited += r.deps.Now().Sub(began)
		if !ok {
			a.res.Interrupted = true
			return a, nil
		}
	}
}

// runAgent runs the agent once for iteration i.
func (r *runner) runAgent(ctx context.Context, i int, it *iterationRecord, prompt string, take *recording.Take) (agent.Result, error) {
	spec := r.agentSpec(i, prompt, it)
	if take != nil {
		spec.Log = io.MultiWriter(spec.Log, take.Output())
	}
	spec.Env = append(r.identityEnv(ctx), spec.Env...) // the loop's own entries win
	if r.runsPreset() && r.cfg.Agent.Prompt == agentcli.File {
		file, err := writePromptFile(prompt)
		if err != nil {
			return agent.Result{}, err
		}
		defer os.Remove(file)
		spec.Command, spec.Prompt = r.cfg.Agent.CommandLine(file), nil
	}
	res, err := agent.Run(ctx, spec)
	if err != nil {
		return res, err
	}
	if res.Truncated {
		r.report(OutputTruncated{Iteration: i, Total: res.OutputBytes, Kept: len(res.Output)})
	}
	return res, nil
}

// writePromptFile puts the prompt where an agent that cannot read stdin finds it: a
// private temp file outside the repository, so the agent's `git add -A` cannot take it.
func writePromptFile(prompt string) (string, error) {
	f, err := os.CreateTemp("", "git-ralph-prompt-*.md")
	if err != nil {
		return "", fmt.Errorf("writing the prompt file: %w", err)
	}
	_, err = f.WriteString(prompt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing the prompt file: %w", err)
	}
	return f.Name(), nil
}

// readOutput reads what the agent said, with its preset's parser when it has one.
func (r *runner) readOutput(res agent.Result) agentcli.Report {
	if r.cfg.Agent.Name == "" {
		return agentcli.ReadText(res.Output, res.ExitCode, r.deps.Now())
	}
	return r.cfg.Agent.Read(res.Output, res.ExitCode, r.deps.Now())
}

// retryPlan decides whether the attempt counts (kind "") or the iteration runs again at
// until; kind is "limit" or "transient". A limit that waiting will not clear, or whose
// wait would pass max_limit_wait, stops the run instead (a.stop).
func (r *runner) retryPlan(a *attempt) (until time.Time, kind, msg string) {
	now, read := r.deps.Now(), a.read
	switch {
	case read.Fatal != "":
		a.stop, a.stopWhy, a.stopHint = StatusFatal, "the agent cannot run: "+read.Fatal, read.Hint
		return time.Time{}, "", ""
	case r.cfg.Replay && a.res.ExitCode == recording.ExitCannotReplay:
		msg, hint := recording.Failure(a.res.Output)
		a.stop, a.stopWhy, a.stopHint = StatusFatal, "the replay cannot go on: "+msg, hint
		return time.Time{}, "", ""
	case read.Limit != nil && read.Limit.Permanent:
		a.stop, a.stopWhy = StatusLimited, "usage limit that waiting will not clear: "+read.Limit.Message
		a.stopHint = "waiting will not clear this limit: check the plan, credits or spend cap of the agent's account; the run resumes where it stopped with the next 'git ralph loop'"
		return time.Time{}, "", ""
	case read.Limit != nil:
		a.limitWaits++
		until = now.Add(r.backoff(a.limitWaits - 1))
		if read.Limit.ResetAt.After(now) {
			until = read.Limit.ResetAt.Add(min(resetMargin, r.backoffMax()))
			r.shareLimit(until, read.Limit.Message)
		}
		if limit := r.maxLimitWait(); until.Sub(now)+a.waited > limit {
			r.journal.state.WaitUntil, r.journal.state.LimitMessage = until, read.Limit.Message
			a.stop = StatusLimited
			a.stopWhy = tooLong(until, now, a.waited, limit, read.Limit.Message)
			// status shows last_error hours later: "48m from now" would be false by then
			a.stopKept = tooLong(until, time.Time{}, 0, limit, read.Limit.Message)
			a.stopHint = limitWaitHint
			return time.Time{}, "", ""
		}
		return until, "limit", read.Limit.Message
	case read.Transient != "" && a.retries < transientRetries:
		a.retries++
		return now.Add(r.backoff(a.retries - 1)), "transient", read.Transient
	}
	return time.Time{}, "", ""
}

// limitWaitHint is what to do about a limit that resets later than max_limit_wait.
const limitWaitHint = "the run resumes where it stopped with the next 'git ralph loop'; raise max_limit_wait to wait longer"

// tooLong says why a limit's wait is not made: when it ends, how long that really is
// from now (and what the iteration already waited), against max_limit_wait. Without now
// (a zero time), only when it ends: the text kept for later readers.
func tooLong(until, now time.Time, waited, limit time.Duration, msg string) string {
	when := until.Local().Format("2006-01-02 15:04:05")
	if !now.IsZero() {
		left := roughly(until.Sub(now)) + " from now"
		if waited > 0 {
			left += ", after " + roughly(waited) + " already waited"
		}
		when += " (" + left + ")"
	}
	return fmt.Sprintf("usage limit until %s, longer than max_limit_wait (%s): %s", when, roughly(limit), msg)
}

// roughly prints d to the second under an hour and to the minute above, without the
// zero units time.Duration prints ("6h", not "6h0m0s").
func roughly(d time.Duration) string {
	if d >= time.Hour {
		d = d.Round(time.Minute)
	} else {
		d = d.Round(time.Second)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// backoff is backoff_base·2^n, capped at backoff_max (by default 2^n seconds up to 60 s).
func (r *runner) backoff(n int) time.Duration {
	base, limit := r.cfg.BackoffBase, r.backoffMax()
	if base <= 0 {
		base = DefaultBackoffBase
	}
	d := base
	for ; n > 0 && d < limit; n-- {
		d *= 2
	}
	return min(d, limit)
}

func (r *runner) backoffMax() time.Duration {
	if r.cfg.BackoffMax > 0 {
		return r.cfg.BackoffMax
	}
	return DefaultBackoffMax
}

func (r *runner) maxLimitWait() time.Duration {
	if r.cfg.MaxLimitWait > 0 {
		return r.cfg.MaxLimitWait
	}
	return DefaultMaxLimitWait
}

// wait sleeps until w.Until with the wake-up time saved in the state, so that a loop
// restarted meanwhile goes on waiting. It reports false when Ctrl+C or `git ralph
// cancel` ended the wait; the run then stops.
func (r *runner) wait(ctx context.Context, w Waiting) bool {
	st := &r.journal.state
	if w.Kind == "limit" {
		st.WaitUntil, st.LimitMessage, st.LimitFrom = w.Until, w.Message, w.From
		if err := r.journal.save(); err != nil {
			r.report(Warning{Message: err.Error()})
		}
	}
	r.report(w)
	timer := time.NewTimer(max(0, w.Until.Sub(r.deps.Now())))
	defer timer.Stop()
	done := false
	select {
	case <-timer.C:
		done = true
	case <-ctx.Done():
	case <-r.deps.Finish:
		r.res.Cancelled = true
	}
	if !done {
		return false
	}
	st.WaitUntil, st.LimitMessage, st.LimitFrom = time.Time{}, "", ""
	// paused during the wait: the wait went on, and the agent waits for `git ralph resume`
	return r.holdIfPaused(ctx, w.Iteration, st.InIteration)
}

// waitSaved goes on with a limit wait that an earlier loop saved in the state, before
// the first iteration runs. It reports false when the run must stop: the wait was
// interrupted, or it would last longer than max_limit_wait.
func (r *runner) waitSaved(ctx context.Context, i int) bool {
	st := &r.journal.state
	until := st.WaitUntil
	if !until.After(r.deps.Now()) {
		st.WaitUntil, st.LimitMessage, st.LimitFrom = time.Time{}, "", ""
		return true
	}
	if limit := r.maxLimitWait(); until.Sub(r.deps.Now()) > limit {
		r.res.Status = StatusLimited
		r.res.Reason = "still waiting for a " + tooLong(until, r.deps.Now(), 0, limit, st.LimitMessage)
		r.res.Hint = limitWaitHint
		return false
	}
	if !r.wait(ctx, Waiting{Iteration: i, Kind: "limit", Message: st.LimitMessage, Until: until, Attempt: 1, Resumed: true, From: st.LimitFrom}) {
		r.res.Status = StatusInterrupted
		return false
	}
	return true
}

// agentEnv is the environment an agent (and the validate command) of iteration i gets.
func (r *runner) agentEnv(i int) []string {
	max := ""
	if r.cfg.MaxIterations > 0 {
		max = strconv.Itoa(r.cfg.MaxIterations)
	}
	return []string{"RALPH_ITERATION=" + strconv.Itoa(i), "RALPH_MODE=" + r.cfg.Mode,
		"RALPH_MAX_ITERATIONS=" + max, "RALPH_RUN=" + r.res.Run}
}

// runsPreset reports whether the preset's own command line runs (no custom command).
func (r *runner) runsPreset() bool { return strings.TrimSpace(r.cfg.AgentCmd) == "" }

// command is the agent's command line: the custom one, or the preset's (whose prompt
// file, if it takes one, runAgent fills in).
func (r *runner) command() string {
	if r.runsPreset() {
		return r.cfg.Agent.CommandLine("")
	}
	return r.cfg.AgentCmd
}
