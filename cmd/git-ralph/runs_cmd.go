package main

import (
	"context"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/loop/mergequeue"
)

// RunsCmd is `git ralph runs`.
type RunsCmd struct {
	JSON bool `name:"json" help:"Print the loops as a JSON array, one object each (see docs/guide/many-loops.md)."`
}

// Run lists every loop of the repository with what it last wrote.
func (c *RunsCmd) Run(ctx context.Context, s Streams) error {
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	runs, err := readRuns(ctx, s, here, now)
	if err != nil {
		return err
	}
	if c.JSON {
		return display.JSON(s.Stdout, runs)
	}
	if err := status.PrintRuns(s.Stdout, runs, now); err != nil {
		return err
	}
	for _, l := range status.ActiveLimits(now) {
		fmt.Fprintf(s.Stdout, "Shared limit: %s\n", display.PrintableText(status.LimitLine(l, now)))
	}
	if today := status.ReadToday(now, status.DailyBudget(runs)); today != nil {
		fmt.Fprintf(s.Stdout, "Spent today: %s\n", display.PrintableText(today.Line()))
	}
	return nil
}

// readRuns reads every loop of the repository (here is any of its work trees), warning
// on stderr about the worktree records it cannot read.
func readRuns(ctx context.Context, s Streams, here string, now time.Time) ([]status.Run, error) {
	if err := recoverMerges(ctx, s, here); err != nil {
		return nil, err
	}
	members, bad, err := fleet.Members(ctx, here)
	if err != nil {
		return nil, err
	}
	for _, e := range bad {
		fmt.Fprintf(s.Stderr, "warning: %s\n", display.PrintableText(e.Error()))
	}
	return status.RunsOf(ctx, here, members, now), nil
}

// recoverMerges finishes or undoes the merges killed halfway (when no merge runs now),
// saying what it did, so that what a command shows or removes next is not half a merge.
func recoverMerges(ctx context.Context, s Streams, here string) error {
	notes, err := mergequeue.Recover(ctx, here)
	if err != nil {
		return err
	}
	for _, note := range notes {
		fmt.Fprintf(s.Stderr, "git-ralph: %s\n", display.PrintableText(note))
	}
	return nil
}
