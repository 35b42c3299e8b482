package loop

import (
	"context"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// DefaultPausePoll is how often a paused loop looks whether `git ralph resume` took the
// pause request back: one stat of a file, twice a second.
const DefaultPausePoll = 500 * time.Millisecond

// holdIfPaused waits, before iteration i starts (or, with retry, before another attempt at
// it after a wait), while a pause is requested (Config.PauseFile): the agent does not start
// until `git ralph resume`. It reports false when Ctrl+C or `git ralph cancel` ended the
// pause; the run then stops as interrupted.
func (r *runner) holdIfPaused(ctx context.Context, i int, retry bool) bool {
	req, paused := r.pauseRequested()
	if !paused {
		return true
	}
	st := &r.journal.state
	st.PausedAt = r.deps.Now()
	r.saveOrWarn()
	r.report(Paused{Iteration: i, Retry: retry, At: st.PausedAt, Asked: req.At})
	resumed := r.waitResumed(ctx)
	now := r.deps.Now()
	held := now.Sub(st.PausedAt)
	st.PausedAt = time.Time{}
	r.saveOrWarn()
	if resumed {
		r.report(Resumed{Iteration: i, At: now, Paused: held})
	}
	return resumed
}

// waitResumed polls the pause request until it is gone; false when the run must stop.
func (r *runner) waitResumed(ctx context.Context) bool {
	tick := time.NewTicker(r.deps.PausePoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-r.deps.Finish:
			r.res.Cancelled = true
			return false
		case <-tick.C:
			if _, paused := r.pauseRequested(); !paused {
				return true
			}
		}
	}
}

// pauseRequested reads the pause request. A request that cannot be read is reported once
// and taken as none: a loop must not hang on a file it cannot see.
func (r *runner) pauseRequested() (history.PauseRequest, bool) {
	if r.cfg.PauseFile == "" {
		return history.PauseRequest{}, false
	}
	req, paused, err := history.ReadPause(r.cfg.PauseFile)
	if err != nil && !r.pauseWarned {
		r.pauseWarned = true
		r.report(Warning{Message: err.Error() + "; going on unpaused"})
	}
	return req, paused && err == nil
}

// saveOrWarn saves the state; a pause goes on even if the state cannot say so.
func (r *runner) saveOrWarn() {
	if err := r.journal.save(); err != nil {
		r.report(Warning{Message: err.Error()})
	}
}
