package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
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
	holder, err := runningLoop(ctx, root)
	if errors.Is(err, errNoLoop) && c.Rollback {
		return hints.Wrap(errNoLoop, "'git ralph rollback initial' goes back to where the last run began")
	}
	if errors.Is(err, errNoLoop) {
		return c.stopLeftover(root, s, err)
	}
	if err != nil {
		return err
	}
	if c.Rollback {
		return cancelAndRollBack(ctx, root, holder, s)
	}
	sig, done := cancelSignal, "asked the loop (pid %d) to stop after its current iteration"
	if pausedBetweenIterations(root) {
		done = "asked the paused loop (pid %d) to stop; it runs no more iterations"
	}
	if c.Now {
		sig, done = syscall.SIGINT, "interrupted the loop (pid %d)"
	}
	if err := signalProcess(holder.PID, sig); err != nil {
		return signalError(holder, err)
	}
	fmt.Fprintf(s.Stdout, done+"%s\n", holder.PID, pauseStays(ctx, root))
	return nil
}

// pauseStays says, when a pause is asked of the loop being cancelled, that the request
// outlives it: the pause is about the work tree's loop, not one process, so the next loop
// starts paused until 'git ralph resume' takes it back.
func pauseStays(ctx context.Context, root string) string {
	path, err := lockPath(ctx, root)
	if err != nil {
		return ""
	}
	if _, asked, err := history.ReadPause(filepath.Join(filepath.Dir(path), history.PauseFile)); err != nil || !asked {
		return ""
	}
	return fmt.Sprintf("; the pause stays: the next '%s' starts paused until 'git ralph resume'", status.LoopAt(ctx, root).StartCommand())
}

// pausedBetweenIterations says whether the loop waits on `pause` with no iteration in
// flight, so that cancel does not speak of a "current iteration" there is not.
func pausedBetweenIterations(root string) bool {
	state, err := history.LoadState(root)
	return err == nil && !state.PausedAt.IsZero() && !state.InIteration
}

// errNoLoop is runningLoop's error when no loop holds the repository's lock.
var errNoLoop = errors.New("no loop is running in this repository")

// stopLeftover stops the agent of a loop that died (kill -9) and that still runs, or
// returns noLoop when there is none: SIGTERM, the grace period (a short one with --now),
// SIGKILL.
func (c *CancelCmd) stopLeftover(root string, s Streams, noLoop error) error {
	state, err := history.LoadState(root)
	if err != nil || status.Leftover(state) == nil {
		return noLoop
	}
	grace := agent.DefaultGrace
	if c.Now {
		grace = 200 * time.Millisecond
	}
	stopped := agent.StopOrphans(state.Run, state.PID, grace)
	if len(stopped) == 0 {
		return noLoop
	}
	fmt.Fprintf(s.Stdout, "stopped the agent the dead loop left running (pid %s)\n", status.JoinPIDs(stopped))
	return nil
}

// runningLoop is the holder of the repository's lock, if it is a process this command can
// signal: one on this host.
func runningLoop(ctx context.Context, root string) (history.Holder, error) {
	path, err := lockPath(ctx, root)
	if err != nil {
		return history.Holder{}, err
	}
	holder, held, err := history.ReadHolder(path)
	switch {
	case err != nil:
		return history.Holder{}, err
	case !held:
		return history.Holder{}, hints.Wrap(errNoLoop,
			"'git ralph status' shows how the last run ended")
	case holder.PID <= 0:
		return history.Holder{}, hints.Wrap(fmt.Errorf("a loop holds %s but its pid could not be read", path),
			"it may be starting or stopping: try again in a moment")
	}
	if host, _ := os.Hostname(); holder.Host != "" && holder.Host != host {
		return history.Holder{}, hints.Wrap(fmt.Errorf("the loop runs on host %s (pid %d), not on this host (%s)", holder.Host, holder.PID, host),
			"run 'git ralph cancel' on %s", holder.Host)
	}
	return holder, nil
}

// signalError explains a failed kill(2).
func signalError(h history.Holder, err error) error {
	switch {
	case errors.Is(err, syscall.ESRCH):
		return hints.Wrap(fmt.Errorf("the loop (pid %d) has already exited", h.PID), "'git ralph status' shows how it ended")
	case errors.Is(err, syscall.EPERM):
		return hints.Wrap(fmt.Errorf("not allowed to signal the loop (pid %d): %w", h.PID, err), "run 'git ralph cancel' as the user who started the loop")
	}
	return fmt.Errorf("signalling the loop (pid %d): %w", h.PID, err)
}
