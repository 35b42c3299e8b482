package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// PauseCmd is `git ralph pause`.
type PauseCmd struct {
	LoopFlag `embed:""`
}

// Run leaves the pause request the loop looks for before it starts an agent. With no loop
// running it stays for the next loop of the work tree, which starts paused: a pause is
// about the work tree's loop, not one process of it, so it outlives a kill or a restart
// from cron until `git ralph resume`.
func (c *PauseCmd) Run(ctx context.Context, s Streams) error {
	root, path, err := pauseRequestPath(ctx, c.LoopFlag)
	if err != nil {
		return err
	}
	req, already, err := history.RequestPause(path, time.Now())
	if err != nil {
		return err
	}
	if already && !req.At.IsZero() {
		fmt.Fprintf(s.Stdout, "a pause was already asked at %s\n", display.LocalTime(req.At))
	}
	holder, err := status.RunningLoop(ctx, root)
	switch {
	case errors.Is(err, status.ErrNoLoop):
		fmt.Fprintln(s.Stdout, "no loop is running here: the next 'git ralph loop' of this work tree starts paused; 'git ralph resume' takes the pause back")
	case err != nil:
		fmt.Fprintln(s.Stdout, "asked the loop of this work tree to pause before it starts its next agent; 'git ralph resume' goes on")
	default:
		fmt.Fprintf(s.Stdout, "the loop (pid %d) pauses once its current iteration is recorded; 'git ralph resume' goes on\n", holder.PID)
	}
	return nil
}

// ResumeCmd is `git ralph resume`.
type ResumeCmd struct {
	LoopFlag `embed:""`
}

// Run takes the pause request back; a paused loop sees it within DefaultPausePoll.
// Resuming a loop that is not paused does nothing and says so, like a second pause.
func (c *ResumeCmd) Run(ctx context.Context, s Streams) error {
	root, path, err := pauseRequestPath(ctx, c.LoopFlag)
	if err != nil {
		return err
	}
	had, err := history.ClearPause(path)
	if err != nil {
		return err
	}
	if !had {
		fmt.Fprintln(s.Stdout, "no pause was asked in this work tree: nothing to resume")
		return nil
	}
	if holder, err := status.RunningLoop(ctx, root); err == nil {
		fmt.Fprintf(s.Stdout, "the loop (pid %d) goes on\n", holder.PID)
		return nil
	}
	fmt.Fprintln(s.Stdout, "the pause is taken back: the next 'git ralph loop' starts its agent at once")
	return nil
}

// pauseRequestPath is the work tree of the loop and its pause request, in its git
// directory beside the lock.
func pauseRequestPath(ctx context.Context, f LoopFlag) (root, path string, err error) {
	if root, err = f.root(ctx); err != nil {
		return "", "", err
	}
	path, err = pausePath(ctx, root)
	return root, path, err
}

// pausePath is where the pause request of the loop in the work tree root lives.
func pausePath(ctx context.Context, root string) (string, error) {
	return gitops.GitPath(ctx, root, history.PauseFile)
}
