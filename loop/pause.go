package loop

import (
	"context"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// DefaultPausePoll is how often a paused loop looks whether `git ralph resume` took the
// pause request back: one stat of a file, twice a second.
const DefaultPausePoll = 500 * time.Millisecond

// pauser holds the run while a pause is requested (Config.PauseFile): the agent does not
// start until `git ralph resume`. It writes only the state's PausedAt.
type pauser struct {
	file   string // "": the loop cannot be paused
	poll   time.Duration
	finish <-chan struct{} // closed by `git ralph cancel`
	now    func() time.Time
	report func(Event)
	warned bool // a pause request that could not be read was reported
}

// hold waits, before iteration i starts (or, with retry, before another attempt at it
// after a wait), while a pause is requested. Ctrl+C or `git ralph cancel` end the pause;
// the run then stops as interrupted.
func (p *pauser) hold(ctx context.Context, st *stateFile, i int, retry bool) waitEnd {
	req, paused := p.requested()
	if !paused {
		return waitDone
	}
	warn := func(m string) { p.report(Warning{Message: m}) }
	st.PausedAt = p.now()
	st.saveOrWarn(warn)
	p.report(Paused{Iteration: i, Retry: retry, At: st.PausedAt, Asked: req.At})
	end := p.waitResumed(ctx)
	now := p.now()
	held := now.Sub(st.PausedAt)
	st.PausedAt = time.Time{}
	st.saveOrWarn(warn)
	if end == waitDone {
		p.report(Resumed{Iteration: i, At: now, Paused: held})
	}
	return end
}

// waitResumed polls the pause request until it is gone.
func (p *pauser) waitResumed(ctx context.Context) waitEnd {
	tick := time.NewTicker(p.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return waitInterrupted
		case <-p.finish:
			return waitCancelled
		case <-tick.C:
			if _, paused := p.requested(); !paused {
				return waitDone
			}
		}
	}
}

// requested reads the pause request. A request that cannot be read is reported once
// and taken as none: a loop must not hang on a file it cannot see.
func (p *pauser) requested() (history.PauseRequest, bool) {
	if p.file == "" {
		return history.PauseRequest{}, false
	}
	req, paused, err := history.ReadPause(p.file)
	if err != nil && !p.warned {
		p.warned = true
		p.report(Warning{Message: err.Error() + "; going on unpaused"})
	}
	return req, paused && err == nil
}
