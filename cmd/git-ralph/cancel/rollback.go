package cancel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/rollback"
	"github.com/git-ralph/git-ralph/history"
)

// RollBackRun rolls the work tree root back to the start of run, which must still be the
// last run; warn is told what the rollback cannot bring back as it was.
func RollBackRun(ctx context.Context, root, run string, warn func(string)) (rollback.Done, error) {
	goal, err := runStart(ctx, root, run, warn)
	if err != nil {
		return rollback.Done{}, err
	}
	return rollback.Apply(ctx, root, goal, false, time.Now())
}

// runStart is the goal of the rollback: the start of run, which must still be the last
// run (a loop started and ended between the cancel's signal and its lock would make
// 'initial' mean another run).
func runStart(ctx context.Context, root, run string, warn func(string)) (rollback.Goal, error) {
	state, err := history.LoadState(root)
	if err != nil {
		return rollback.Goal{}, err
	}
	if run == "" || state.Run != run {
		return rollback.Goal{}, hints.Wrap(fmt.Errorf("where the stopped run began is unknown: the last run is now %q, not %q", state.Run, run),
			"'git ralph history' lists the iterations with their runs; roll back to one by number")
	}
	return rollback.ToRunStart(ctx, root, run, warn)
}

// AwaitLock takes the repository's lock at path once the stopped loop has released it,
// polling until within has passed; then its error is history.ErrLocked's, with what to do.
func AwaitLock(ctx context.Context, path string, holder history.Holder, within time.Duration) (*history.Lock, error) {
	deadline := time.Now().Add(within)
	for {
		lock, err := history.Acquire(path, history.ThisProcess(time.Now()))
		if !errors.Is(err, history.ErrLocked) {
			return lock, err
		}
		if time.Now().After(deadline) {
			return nil, stillLocked{hints.Wrap(fmt.Errorf("the loop (pid %d) did not stop within %s: nothing was rolled back", holder.PID, within),
				"'git ralph status' shows what it does; once it has stopped, 'git ralph rollback initial' goes back to the start of its run")}
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stillLocked is AwaitLock's error when the loop kept the lock: history.ErrLocked, said
// with the loop's pid and the wait.
type stillLocked struct{ error }

func (e stillLocked) Is(target error) bool { return target == history.ErrLocked }

func (e stillLocked) Unwrap() error { return e.error }
