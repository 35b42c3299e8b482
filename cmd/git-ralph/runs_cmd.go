package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/loop/mergequeue"
)

// RunsCmd is `git ralph runs`.
type RunsCmd struct {
	JSON bool `name:"json" help:"Print the loops as a JSON array, one object each (see docs/guide/many-loops.md)."`
	All  bool `help:"The loops of every repository where a loop was started in the background (and of this one), with the repository first."`
}

// Run lists every loop of the repository with what it last wrote.
func (c *RunsCmd) Run(ctx context.Context, s Streams) error {
	if c.All {
		return c.all(ctx, s)
	}
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

// all lists the loops of every registered repository and of the one here (if any); a
// repository that cannot be read is a warning.
func (c *RunsCmd) all(ctx context.Context, s Streams) error {
	repos, err := history.UserRepos()
	if err != nil {
		return err
	}
	list, err := repos.List()
	if err != nil {
		fmt.Fprintf(s.Stderr, "warning: %s\n", display.PrintableText(err.Error()))
	}
	if here, err := launch.RepoRoot(ctx); err == nil {
		if main, err := fleet.Find(ctx, here, fleet.MainName); err == nil && !slices.Contains(list, main.Path) {
			list = append([]string{main.Path}, list...)
		}
	}
	now := time.Now()
	runs, problems := status.RunsOfRepos(ctx, list, now)
	for _, p := range problems {
		fmt.Fprintf(s.Stderr, "warning: %s\n", display.PrintableText(p.Error()))
	}
	if c.JSON {
		return display.JSON(s.Stdout, runs)
	}
	return status.PrintRepoRuns(s.Stdout, runs, now)
}
