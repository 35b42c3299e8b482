package loop

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/recording"
)

// limitWaits are the run's waits between attempts: for a usage limit (its own, one an
// earlier loop saved, one another loop shared) and after a transient error. It reads the
// clock and writes only the state's wait (WaitUntil, LimitMessage, LimitFrom); a wait
// that ends goes on into the pause, if one is asked.
type limitWaits struct {
	clock   clock
	base    time.Duration   // backoff_base: the first wait after a limit with no stated reset
	max     time.Duration   // backoff_max: the cap of those waits
	longest time.Duration   // max_limit_wait: a longer wait stops the run instead
	finish  <-chan struct{} // closed by `git ralph cancel`
	st      *stateFile
	shared  *sharedLimits
	pause   *pauser
	report  func(Event)
}

func newLimitWaits(cfg Config, deps Deps, st *stateFile, pause *pauser, report func(Event)) *limitWaits {
	w := &limitWaits{clock: clock{now: deps.Now, after: deps.After}, base: cfg.BackoffBase, max: cfg.BackoffMax,
		longest: cfg.MaxLimitWait, finish: deps.Finish, st: st, pause: pause, report: report}
	if w.base <= 0 {
		w.base = DefaultBackoffBase
	}
	if w.max <= 0 {
		w.max = DefaultBackoffMax
	}
	if w.longest <= 0 {
		w.longest = DefaultMaxLimitWait
	}
	w.shared = &sharedLimits{store: cfg.Limits, agent: cfg.Agent.Name, from: cfg.LimitFrom, account: st.AgentAccount,
		now: deps.Now, warn: func(m string) { report(Warning{Message: m}) }}
	if cfg.Agent.InProcess() && cfg.API != nil {
		// an API's limits are the key's: shared by its fingerprint, never the key
		w.shared.account = cfg.API.Account()
	}
	return w
}

// backoff is backoff_base·2^n, capped at backoff_max (by default 2^n seconds up to 60 s).
func (w *limitWaits) backoff(n int) time.Duration {
	d := w.base
	for ; n > 0 && d < w.max; n-- {
		d *= 2
	}
	return min(d, w.max)
}

// retryPlan decides whether the attempt counts (kind "") or the iteration runs again at
// until; kind is "limit" or "transient". A limit that waiting will not clear, or whose
// wait would pass max_limit_wait, stops the run instead (a.halt); so does a replay that
// cannot go on (replay: the agent is a recording).
func (w *limitWaits) retryPlan(a *attempt, replay bool) (until time.Time, kind, msg string) {
	now, read := w.clock.now(), a.read
	switch {
	case read.Fatal != "":
		a.halt = halt{stop: StatusFatal, why: "the agent cannot run: " + read.Fatal, hint: read.Hint}
	case replay && a.res.ExitCode == recording.ExitCannotReplay:
		msg, hint := recording.Failure(a.res.Output)
		a.halt = halt{stop: StatusFatal, why: "the replay cannot go on: " + msg, hint: hint}
	case read.Limit != nil && read.Limit.Permanent:
		a.halt = halt{stop: StatusLimited, why: "usage limit that waiting will not clear: " + read.Limit.Message,
			hint: "waiting will not clear this limit: check the plan, credits or spend cap of the agent's account; the run resumes where it stopped with the next 'git ralph loop'"}
	case read.Limit != nil:
		a.limitWaits++
		until = now.Add(w.backoff(a.limitWaits - 1))
		if read.Limit.ResetAt.After(now) {
			until = read.Limit.ResetAt.Add(min(resetMargin, w.max))
			w.shared.share(until, read.Limit.Message)
		}
		if until.Sub(now)+a.waited <= w.longest {
			return until, "limit", read.Limit.Message
		}
		w.st.WaitUntil, w.st.LimitMessage = until, read.Limit.Message
		a.halt = halt{stop: StatusLimited, why: tooLong(until, now, a.waited, w.longest, read.Limit.Message), hint: limitWaitHint}
		// status shows last_error hours later: "48m from now" would be false by then
		a.haltKept = tooLong(until, time.Time{}, 0, w.longest, read.Limit.Message)
	case read.Transient != "" && a.retries < transientRetries:
		a.retries++
		return now.Add(w.backoff(a.retries - 1)), "transient", read.Transient
	}
	return time.Time{}, "", ""
}

// wait sleeps until ev.Until with the wake-up time saved in the state, so that a loop
// restarted meanwhile goes on waiting; then holds while a pause is asked (the wait went
// on during it, and the agent waits for `git ralph resume`).
func (w *limitWaits) wait(ctx context.Context, ev Waiting) waitEnd {
	if ev.Kind == "limit" {
		w.st.WaitUntil, w.st.LimitMessage, w.st.LimitFrom = ev.Until, ev.Message, ev.From
		w.st.saveOrWarn(func(m string) { w.report(Warning{Message: m}) })
	}
	w.report(ev)
	select {
	case <-w.clock.after(max(0, ev.Until.Sub(w.clock.now()))):
	case <-ctx.Done():
		return waitInterrupted
	case <-w.finish:
		return waitCancelled
	}
	w.st.clearWait()
	return w.pause.hold(ctx, w.st, ev.Iteration, w.st.InIteration)
}

// timed is wait, adding the time it took to a's waits.
func (w *limitWaits) timed(ctx context.Context, a *attempt, ev Waiting) waitEnd {
	began := w.clock.now()
	end := w.wait(ctx, ev)
	a.waited += w.clock.now().Sub(began)
	return end
}

// resumeSaved goes on with a limit wait that an earlier loop saved in the state, before
// the first iteration (i) runs. A wait longer than max_limit_wait stops the run (the halt).
func (w *limitWaits) resumeSaved(ctx context.Context, i int) (halt, waitEnd) {
	until, now := w.st.WaitUntil, w.clock.now()
	if !until.After(now) {
		w.st.clearWait()
		return halt{}, waitDone
	}
	if until.Sub(now) > w.longest {
		return halt{stop: StatusLimited, why: "still waiting for a " + tooLong(until, now, 0, w.longest, w.st.LimitMessage),
			hint: limitWaitHint}, waitDone
	}
	return halt{}, w.wait(ctx, Waiting{Iteration: i, Kind: "limit", Message: w.st.LimitMessage, Until: until, Attempt: 1,
		Resumed: true, From: w.st.LimitFrom})
}

// beforeIteration waits, before iteration i, for a limit another loop shared. A wait
// longer than max_limit_wait stops the run as limited, as for a limit of its own, and
// keeps the wait in the state for the next loop.
func (w *limitWaits) beforeIteration(ctx context.Context, i int) (halt, waitEnd) {
	l, ok := w.shared.limit()
	if !ok {
		return halt{}, waitDone
	}
	now := w.clock.now()
	if l.Until.Sub(now) > w.longest {
		w.st.WaitUntil, w.st.LimitMessage, w.st.LimitFrom = l.Until, l.Message, l.From
		return halt{stop: StatusLimited, why: sharedBy(l.From) + tooLong(l.Until, now, 0, w.longest, l.Message),
			hint: w.shared.hint(l)}, waitDone
	}
	return halt{}, w.wait(ctx, Waiting{Iteration: i, Kind: "limit", Message: l.Message, Until: l.Until, Attempt: 1, From: l.From})
}

// beforeRetry waits, before another attempt at iteration i, for a limit another loop
// shared meanwhile, when the iteration's waits stay within max_limit_wait (else the
// attempt runs and finds the limit itself).
func (w *limitWaits) beforeRetry(ctx context.Context, i int, a *attempt) waitEnd {
	l, ok := w.shared.limit()
	if !ok || l.Until.Sub(w.clock.now())+a.waited > w.longest {
		return waitDone
	}
	a.limitWaits++
	return w.timed(ctx, a, Waiting{Iteration: i, Kind: "limit", Message: l.Message, Until: l.Until,
		Attempt: a.limitWaits + a.retries, From: l.From})
}

// overage stops the run after an iteration served on paid extra usage. When the agent
// said when the plan's window resets (planResets), that is saved as a limit's wait: the
// next loop waits for it (or stops at once while it is further than max_limit_wait)
// instead of paying for one more iteration on overage each time it starts.
func (w *limitWaits) overage(planResets time.Time) halt {
	h := halt{stop: StatusLimited, cause: "overage",
		why: "the agent was served on paid extra usage (overage), and stop_on_overage is set"}
	if !planResets.After(w.clock.now()) {
		h.hint = "the iteration counted; the agent stated no reset of its plan's window still to come, so the next 'git ralph loop' goes on, and stops again after an iteration served on overage; set stop_on_overage = false in your own config (or RALPH_STOP_ON_OVERAGE=false) to go on paying for extra usage"
		return h
	}
	planResets = planResets.Add(min(resetMargin, w.max)) // as for a limit's stated reset
	w.st.WaitUntil, w.st.LimitMessage = planResets, "stop_on_overage: the plan's window is spent, and the agent is served only on paid extra usage until it resets"
	h.hint = fmt.Sprintf("the iteration counted; the next 'git ralph loop' waits for the plan's window to reset at %s before it runs the agent; set stop_on_overage = false in your own config (or RALPH_STOP_ON_OVERAGE=false) to go on paying for extra usage",
		planResets.Local().Format("2006-01-02 15:04:05"))
	return h
}

// sharedLimits are the usage limits the user's loops on this machine share (Config.Limits).
type sharedLimits struct {
	store   *history.Limits // nil: none shared
	agent   string          // the preset's name; "" (a custom command): none shared
	account string          // the account the agent last said it ran on
	from    string          // this loop's work tree, which names it in the store
	now     func() time.Time
	warn    func(string)
}

// learned keys the shared limits with the account the agent said it ran on.
func (s *sharedLimits) learned(account string) { s.account = account }

// share records a limit whose reset the agent stated, so that the user's other loops
// of the same agent and account wait until then instead of spending an attempt to find
// out. A limit without a stated reset (a bare 429) is not shared: its backoff is a guess.
// A permanent one is not either: it has no reset to wait for.
func (s *sharedLimits) share(until time.Time, msg string) {
	if s.store == nil || s.agent == "" {
		return
	}
	err := s.store.Share(history.SharedLimit{Agent: s.agent, Account: s.account, Until: until,
		Message: msg, From: s.from, PID: os.Getpid(), LearnedAt: s.now().UTC()})
	if err != nil {
		s.warn("sharing the usage limit with the other loops: " + err.Error())
	}
}

// limit is the limit a loop of the same agent and account shared that this loop's
// next attempt must wait for; false when there is none.
func (s *sharedLimits) limit() (history.SharedLimit, bool) {
	if s.store == nil || s.agent == "" {
		return history.SharedLimit{}, false
	}
	l, ok, err := s.store.For(s.agent, s.account, s.now())
	if err != nil {
		s.warn(err.Error())
	}
	if l.From == s.from {
		l.From = "" // this loop's own, learned by an earlier run of it
	}
	return l, ok
}

// hint is what to do about a stop for a limit another loop shared: whose limit it
// is (the account its agent named, where it was met) and how to clear the shared record
// when this loop's agent runs on another account, which git-ralph cannot see.
func (s *sharedLimits) hint(l history.SharedLimit) string {
	if l.From == "" || s.store == nil {
		return limitWaitHint // this loop's own limit, met by an earlier run of it
	}
	whose := fmt.Sprintf("%s on the account its CLI called %q", l.Agent, l.Account)
	if fp, ok := strings.CutPrefix(l.Account, "key "); ok { // an API agent's: a fingerprint of its key
		whose = fmt.Sprintf("%s on the same API key (fingerprint %s)", l.Agent, fp)
	}
	if l.Account == "" {
		whose = fmt.Sprintf("%s, whose CLI names no account (so every %s loop of yours shares the wait)", l.Agent, l.Agent)
	}
	return fmt.Sprintf("the loop in %s met this limit of %s; %s; if this loop runs %s on another account, remove %s to clear the shared wait",
		l.From, whose, limitWaitHint, l.Agent, s.store.Path(l))
}

// sharedBy names the loop that shared a limit, for a stop reason.
func sharedBy(from string) string {
	if from == "" {
		return ""
	}
	return fmt.Sprintf("shared by the loop in %s: ", from)
}
