package loop

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// shareLimit records a limit whose reset the agent stated, so that the user's other loops
// of the same agent and account wait until then instead of spending an attempt to find
// out. A limit without a stated reset (a bare 429) is not shared: its backoff is a guess.
// A permanent one is not either: it has no reset to wait for.
func (r *runner) shareLimit(until time.Time, msg string) {
	if r.cfg.Limits == nil || r.cfg.Agent.Name == "" {
		return
	}
	err := r.cfg.Limits.Share(history.SharedLimit{Agent: r.cfg.Agent.Name, Account: r.account, Until: until,
		Message: msg, From: r.cfg.LimitFrom, PID: os.Getpid(), LearnedAt: r.deps.Now().UTC()})
	if err != nil {
		r.report(Warning{Message: "sharing the usage limit with the other loops: " + err.Error()})
	}
}

// sharedLimit is the limit a loop of the same agent and account shared that this loop's
// next attempt must wait for; false when there is none.
func (r *runner) sharedLimit() (history.SharedLimit, bool) {
	if r.cfg.Limits == nil || r.cfg.Agent.Name == "" {
		return history.SharedLimit{}, false
	}
	l, ok, err := r.cfg.Limits.For(r.cfg.Agent.Name, r.account, r.deps.Now())
	if err != nil {
		r.report(Warning{Message: err.Error()})
	}
	if l.From == r.cfg.LimitFrom {
		l.From = "" // this loop's own, learned by an earlier run of it
	}
	return l, ok
}

// waitShared waits, before iteration i, for a limit another loop shared. It reports false
// when the run must stop: the wait was interrupted, or it would last longer than
// max_limit_wait (the run stops as limited, as for a limit of its own, and keeps the
// wait for the next loop).
func (r *runner) waitShared(ctx context.Context, i int) bool {
	l, ok := r.sharedLimit()
	if !ok {
		return true
	}
	now := r.deps.Now()
	if limit := r.maxLimitWait(); l.Until.Sub(now) > limit {
		st := &r.journal.state
		st.WaitUntil, st.LimitMessage, st.LimitFrom = l.Until, l.Message, l.From
		r.res.Status = StatusLimited
		r.res.Reason = sharedBy(l.From) + tooLong(l.Until, now, 0, limit, l.Message)
		r.res.Hint = r.sharedHint(l)
		return false
	}
	if !r.wait(ctx, Waiting{Iteration: i, Kind: "limit", Message: l.Message, Until: l.Until, Attempt: 1, From: l.From}) {
		r.res.Status = StatusInterrupted
		return false
	}
	return true
}

// waitSharedRetry waits, before another attempt at iteration i, for a limit another loop
// shared meanwhile, when the iteration's waits stay within max_limit_wait (else the
// attempt runs and finds the limit itself). It reports false when the wait was interrupted.
func (r *runner) waitSharedRetry(ctx context.Context, i int, a *attempt) bool {
	l, ok := r.sharedLimit()
	if !ok || l.Until.Sub(r.deps.Now())+a.waited > r.maxLimitWait() {
		return true
	}
	began := r.deps.Now()
	a.limitWaits++
	done := r.wait(ctx, Waiting{Iteration: i, Kind: "limit", Message: l.Message, Until: l.Until, Attempt: a.limitWaits + a.retries, From: l.From})
	a.waited += r.deps.Now().Sub(began)
	return done
}

// sharedHint is what to do about a stop for a limit another loop shared: whose limit it
// is (the account its agent named, where it was met) and how to clear the shared record
// when this loop's agent runs on another account, which git-ralph cannot see.
func (r *runner) sharedHint(l history.SharedLimit) string {
	if l.From == "" || r.cfg.Limits == nil {
		return limitWaitHint // this loop's own limit, met by an earlier run of it
	}
	whose := fmt.Sprintf("%s on the account its CLI called %q", l.Agent, l.Account)
	if l.Account == "" {
		whose = fmt.Sprintf("%s, whose CLI names no account (so every %s loop of yours shares the wait)", l.Agent, l.Agent)
	}
	return fmt.Sprintf("the loop in %s met this limit of %s; %s; if this loop runs %s on another account, remove %s to clear the shared wait",
		l.From, whose, limitWaitHint, l.Agent, r.cfg.Limits.Path(l))
}

// sharedBy names the loop that shared a limit, for a stop reason.
func sharedBy(from string) string {
	if from == "" {
		return ""
	}
	return fmt.Sprintf("shared by the loop in %s: ", from)
}
