package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/rollback"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// cancelRollbackWait bounds how long 'cancel --rollback' waits for the interrupted loop
// to stop: the agent's grace period, the iteration's bookkeeping (bounded by the same
// grace once interrupted) and room for a loaded machine.
var cancelRollbackWait = 2*agent.DefaultGrace + 20*time.Second

// cancelAndRollBack is 'git ralph cancel --rollback': it interrupts the loop as --now
// does (the iteration in flight is stopped and recorded, its work kept by its checkpoint),
// waits for the loop to release the repository's lock, takes that lock itself so that no
// loop starts meanwhile, and rolls back as 'git ralph rollback initial' would to the
// start of the run it stopped: the checkpoint before that run's first iteration.
func cancelAndRollBack(ctx context.Context, root string, holder history.Holder, s Streams) error {
	if err := history.CheckOwnDirs(root); err != nil { // before anything changes, not after
		return err
	}
	state, err := history.LoadState(root)
	if err != nil {
		return err
	}
	if err := signalProcess(holder.PID, syscall.SIGINT); err != nil {
		return signalError(holder, err)
	}
	fmt.Fprintf(s.Stdout, "interrupted the loop (pid %d); rolling back to the start of its run once it has stopped\n", holder.PID)
	lock, err := awaitLock(ctx, root, holder, cancelRollbackWait)
	if err != nil {
		return err
	}
	defer lock.Release()
	done, err := rollBackRun(ctx, root, state.Run, s)
	if err != nil {
		// the error's hint says what to do first; the rollback is then one command
		fmt.Fprintln(s.Stdout, "the loop has stopped, but nothing was rolled back; once the error below is dealt with, 'git ralph rollback initial' goes back to the start of its run")
		return err
	}
	reportRollback(ctx, root, s, done)
	return nil
}

func rollBackRun(ctx context.Context, root, run string, s Streams) (rollback.Done, error) {
	goal, err := runStart(ctx, root, run, s)
	if err != nil {
		return rollback.Done{}, err
	}
	return rollback.Apply(ctx, root, goal, false, time.Now())
}

// awaitLock takes the repository's lock once the stopped loop has released it, polling
// until within has passed.
func awaitLock(ctx context.Context, root string, holder history.Holder, within time.Duration) (*history.Lock, error) {
	deadline := time.Now().Add(within)
	for {
		lock, err := acquireLock(ctx, root)
		if !errors.Is(err, history.ErrLocked) {
			return lock, err
		}
		if time.Now().After(deadline) {
			return nil, &exitError{code: exitBusy, err: hints.Wrap(fmt.Errorf("the loop (pid %d) did not stop within %s: nothing was rolled back", holder.PID, within),
				"'git ralph status' shows what it does; once it has stopped, 'git ralph rollback initial' goes back to the start of its run")}
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// runStart is the goal of the rollback: the start of run, which must still be the last
// run (a loop started and ended between the cancel's signal and its lock would make
// 'initial' mean another run).
func runStart(ctx context.Context, root, run string, s Streams) (rollback.Goal, error) {
	state, err := history.LoadState(root)
	if err != nil {
		return rollback.Goal{}, err
	}
	if run == "" || state.Run != run {
		return rollback.Goal{}, hints.Wrap(fmt.Errorf("where the stopped run began is unknown: the last run is now %q, not %q", state.Run, run),
			"'git ralph history' lists the iterations with their runs; roll back to one by number")
	}
	return rollback.ToRunStart(ctx, root, run, func(warning string) {
		fmt.Fprintf(s.Stderr, "warning: %s\n", warning)
	})
}
