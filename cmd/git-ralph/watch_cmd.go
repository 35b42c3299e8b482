package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/pick"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/watch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/watchsource"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// WatchCmd is `git ralph watch`.
type WatchCmd struct {
	LoopFlag `embed:""`
}

// Run shows the loop of the work tree (or --loop NAME) full screen until q. With no loop
// running there and no --loop, it lists the repository's loops to drill into.
func (c *WatchCmd) Run(ctx context.Context, s Streams) error {
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	terminal := reporting.IsTerminal(s.Stdin) && reporting.IsTerminal(s.Stdout)
	noColor := reporting.NoColor()
	if _, err := status.RunningLoop(ctx, root); errors.Is(err, status.ErrNoLoop) && c.Loop == "" {
		if !terminal {
			fmt.Fprintln(s.Stdout, "no loop is running in this work tree; the repository's loops:")
			if err := (&RunsCmd{}).Run(ctx, s); err != nil {
				return err
			}
			fmt.Fprintln(s.Stdout, "hint: git ralph watch --loop NAME")
			return nil
		}
		return watchFleet(ctx, s, !noColor)
	}
	if !terminal {
		return hints.Wrap(errors.New("watch needs a terminal"), "'git ralph status --watch' prints each change of the status, for a log or a pipe")
	}
	model, err := loopView(ctx, c.LoopFlag, !noColor)
	if err != nil {
		return err
	}
	return watch.RunView(ctx, model, s.Stdin, s.Stdout)
}

// loopView is the full-screen view of the loop f names.
func loopView(ctx context.Context, f LoopFlag, color bool) (*watch.Model, error) {
	root, err := f.root(ctx)
	if err != nil {
		return nil, err
	}
	path, err := launch.LockPath(ctx, root)
	if err != nil {
		return nil, err
	}
	cps := &watchsource.Checkpoints{}
	// which loop it is (the commands its status names) and its branch: git, once
	reader := &watchsource.Reader{Root: root, Lock: path, Place: status.LoopAt(ctx, root)}
	if branch, err := gitops.CurrentBranch(ctx, root); err == nil {
		reader.Branch = branch
	}
	return watch.New(func() (watch.Snapshot, error) {
		snap, err := reader.Snapshot(ctx, time.Now())
		if err == nil {
			snap.Notes = append(snap.Notes, cps.Line(ctx, root, time.Now()))
		}
		return snap, err
	}, watchActions(ctx, f, cps), color), nil
}

// watchFleet lists the repository's loops full screen, read again every few seconds;
// Enter drills into one (its view, as --loop NAME shows it), Esc comes back, q quits.
func watchFleet(ctx context.Context, s Streams, color bool) error {
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	runs, err := readRuns(ctx, s, here, time.Now()) // repairs what a killed merge left, once
	if err != nil {
		return err
	}
	first, err := watchsource.FleetLoopsOf(ctx, here, runs)
	if err != nil {
		return err
	}
	read := func() (watch.Loops, error) {
		members, _, err := fleet.Members(ctx, here)
		if err != nil {
			return watch.Loops{}, err
		}
		return watchsource.FleetLoopsOf(ctx, here, status.RunsOf(ctx, here, members, time.Now()))
	}
	open := func(name string) (*watch.Model, error) { return loopView(ctx, LoopFlag{Loop: name}, color) }
	view := watch.NewFleet("no loop is running in this work tree; the repository's loops:", first, read, open, color)
	picks := pick.New(here) // m: a best-of candidate's merge, as serve's button starts it
	view.SetMerge(func(group, candidate string) (string, error) {
		said, err := picks.Pick(ctx, group, candidate)
		return said, hints.Inline(err)
	})
	return watch.RunView(ctx, view, s.Stdin, s.Stdout)
}

// watchActions are the view's keys: each runs the command of the same name, its output
// shown on one line.
func watchActions(ctx context.Context, f LoopFlag, cps *watchsource.Checkpoints) watch.Actions {
	run := func(cmd commandRun) (string, error) { return runForView(ctx, cmd, "") }
	return watch.Actions{
		Pause:  func(string) (string, error) { return run(&PauseCmd{LoopFlag: f}) },
		Resume: func(string) (string, error) { return run(&ResumeCmd{LoopFlag: f}) },
		Inject: func(text string) (string, error) { return run(&InjectCmd{Text: text, LoopFlag: f}) },
		Checkpoint: func(string) (string, error) {
			defer cps.Stale.Store(true)
			return run(&CheckpointCmd{LoopFlag: f})
		},
		Cancel: func(string) (string, error) { return run(&CancelCmd{LoopFlag: f}) },
	}
}
