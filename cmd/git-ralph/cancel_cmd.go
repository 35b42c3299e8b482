package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/cancel"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// CancelCmd is `git ralph cancel`.
type CancelCmd struct {
	Now      bool `help:"Interrupt the agent at once, as Ctrl+C does, instead of letting the current iteration finish."`
	Rollback bool `help:"Interrupt the loop at once (as --now) and, once it has stopped, bring the branch and the work tree back to where its run began, keeping what they replace in a backup ref."`
	LoopFlag `embed:""`
}

// Run signals the loop that holds the repository's lock and returns without waiting:
// cancelSignal asks it to stop after the current iteration, SIGINT (--now) interrupts it.
func (c *CancelCmd) Run(ctx context.Context, s Streams) error {
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	holder, err := status.RunningLoop(ctx, root)
	if errors.Is(err, status.ErrNoLoop) && c.Rollback {
		return hints.Wrap(status.ErrNoLoop, "'git ralph rollback initial' goes back to where the last run began")
	}
	if errors.Is(err, status.ErrNoLoop) {
		return c.stopLeftover(root, s, err)
	}
	if err != nil {
		return err
	}
	if c.Rollback {
		return cancelAndRollBack(ctx, root, holder, s)
	}
	sig, done := cancelSignal, "asked the loop (pid %d) to stop after its current iteration"
	if cancel.PausedBetweenIterations(root) {
		done = "asked the paused loop (pid %d) to stop; it runs no more iterations"
	}
	if c.Now {
		sig, done = syscall.SIGINT, "interrupted the loop (pid %d)"
	}
	if err := signalProcess(holder.PID, sig); err != nil {
		return cancel.SignalError(holder, err)
	}
	fmt.Fprintf(s.Stdout, done+"%s\n", holder.PID, cancel.PauseStays(ctx, root))
	return nil
}

// stopLeftover stops the agent of a loop that died (kill -9) and that still runs, or
// returns noLoop when there is none: SIGTERM, the grace period (a short one with --now),
// SIGKILL.
func (c *CancelCmd) stopLeftover(root string, s Streams, noLoop error) error {
	grace := agent.DefaultGrace
	if c.Now {
		grace = 200 * time.Millisecond
	}
	stopped := cancel.StopLeftover(root, grace)
	if len(stopped) == 0 {
		return noLoop
	}
	fmt.Fprintf(s.Stdout, "stopped the agent the dead loop left running (pid %s)\n", status.JoinPIDs(stopped))
	return nil
}

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
		return cancel.SignalError(holder, err)
	}
	fmt.Fprintf(s.Stdout, "interrupted the loop (pid %d); rolling back to the start of its run once it has stopped\n", holder.PID)
	lock, err := awaitLock(ctx, root, holder, cancelRollbackWait)
	if err != nil {
		return err
	}
	defer lock.Release()
	done, err := cancel.RollBackRun(ctx, root, state.Run, func(warning string) { fmt.Fprintf(s.Stderr, "warning: %s\n", warning) })
	if err != nil {
		// the error's hint says what to do first; the rollback is then one command
		fmt.Fprintln(s.Stdout, "the loop has stopped, but nothing was rolled back; once the error below is dealt with, 'git ralph rollback initial' goes back to the start of its run")
		return err
	}
	reportRollback(ctx, root, s, done)
	return nil
}

// awaitLock takes the repository's lock once the stopped loop has released it, polling
// until within has passed; a loop that keeps it is exitcode.Busy.
func awaitLock(ctx context.Context, root string, holder history.Holder, within time.Duration) (*history.Lock, error) {
	path, err := launch.LockPath(ctx, root)
	if err != nil {
		return nil, err
	}
	lock, err := cancel.AwaitLock(ctx, path, holder, within)
	if errors.Is(err, history.ErrLocked) {
		return nil, &exitcode.Error{Code: exitcode.Busy, Err: err}
	}
	return lock, err
}
