package loop

import (
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// stateFile is the run's state (.ralph/state.toml) as the loop holds it between saves:
// the collaborators that write the state (the budgets, the limit waits, the pause) are
// handed it, and no more of the run.
type stateFile struct {
	history.State
	root string
}

// save writes the state atomically.
func (s *stateFile) save() error {
	if err := history.SaveState(s.root, s.State); err != nil {
		return fmt.Errorf("saving the loop's state: %w", err)
	}
	return nil
}

// saveOrWarn saves the state; what asked for the save goes on even if the state cannot
// say so.
func (s *stateFile) saveOrWarn(warn func(string)) {
	if err := s.save(); err != nil {
		warn(err.Error())
	}
}

// clearWait forgets the limit's wait the state holds.
func (s *stateFile) clearWait() {
	s.WaitUntil, s.LimitMessage, s.LimitFrom = time.Time{}, "", ""
}

// clock is the time the loop reads and the timer its limit waits sleep on: the real one,
// or a test's that moves only when the loop waits (Deps.Now, Deps.After).
type clock struct {
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// halt is why a run stops where it does, beyond its counters: the status, why in words,
// what the user can do about it, and the cause where the status has several
// (Result.Cause).
type halt struct {
	stop  Status
	why   string
	hint  string
	cause string
}

// halted sets the run's end from h.
func (res *Result) halted(h halt) {
	res.Status, res.Reason, res.Hint, res.Cause = h.stop, h.why, h.hint, h.cause
}

// waitEnd is how a wait (for a limit, or during a pause) ended.
type waitEnd int

const (
	waitDone        waitEnd = iota // it ran its course: the run goes on
	waitInterrupted                // Ctrl+C (or SIGTERM): the run stops as interrupted
	waitCancelled                  // `git ralph cancel`: likewise, and Result.Cancelled
)

// waitedOut notes a cancel in the result and reports whether the run goes on.
func (res *Result) waitedOut(end waitEnd) bool {
	if end == waitCancelled {
		res.Cancelled = true
	}
	return end == waitDone
}
