package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/loop/mergequeue"
)

// RunsCmd is `git ralph runs`.
type RunsCmd struct {
	JSON bool `name:"json" help:"Print the loops as a JSON array, one object each (see docs/guide/many-loops.md)."`
}

// Run lists every loop of the repository with what it last wrote.
func (c *RunsCmd) Run(ctx context.Context, s Streams) error {
	here, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	runs, err := readRuns(ctx, s, here, now)
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(s.Stdout, runs)
	}
	if err := printRuns(s.Stdout, runs, now); err != nil {
		return err
	}
	for _, l := range status.ActiveLimits(now) {
		fmt.Fprintf(s.Stdout, "Shared limit: %s\n", display.PrintableText(status.LimitLine(l, now)))
	}
	if today := status.ReadToday(now, dailyBudget(runs)); today != nil {
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
	return runsOf(ctx, here, members, now), nil
}

// runsOf reads what each of the loops last wrote, with its merge's state: the runs that
// `runs` lists and the dashboard shows.
func runsOf(ctx context.Context, here string, members []fleet.Member, now time.Time) []status.Run {
	runs := make([]status.Run, 0, len(members))
	for _, m := range members {
		runs = append(runs, status.ReadRun(ctx, here, m, now))
	}
	withMerges(ctx, here, members, runs)
	return runs
}

// runsTable prints the header and one line per loop, in aligned columns.
func runsTable(w io.Writer, runs []status.Run, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tBRANCH\tSTATE\tITERATION\tLAST OUTCOME\tVALIDATION\tAHEAD\tPATH")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", display.Printable(r.Name), display.Printable(display.OrDash(r.Branch)),
			display.Printable(runState(r, now)), runIteration(r), display.Printable(display.OrDash(r.LastOutcome)),
			display.Printable(display.OrDash(r.Validation)), runAhead(r), display.Printable(r.Path))
	}
	return tw.Flush()
}

// printRuns prints one line per loop, then how to look closer.
func printRuns(w io.Writer, runs []status.Run, now time.Time) error {
	if err := runsTable(w, runs, now); err != nil {
		return err
	}
	for _, r := range runs {
		if r.Problem != "" {
			fmt.Fprintf(w, "%s: %s\n", display.Printable(r.Name), display.PrintableText(r.Problem))
		}
		if r.State == status.StateDiscarded && r.Backup != "" {
			fmt.Fprintf(w, "%s: discarded; '%s' brings its branch back ('git ralph prune' forgets it)\n", display.Printable(r.Name), display.Printable(r.Look))
		}
		if r.Spend != nil {
			fmt.Fprintf(w, "%s: spend %s\n", display.Printable(r.Name), r.Spend.Line())
		}
		if r.State == status.StateGone {
			fmt.Fprintf(w, "%s: its worktree is gone; '%s' checks its branch out again\n", display.Printable(r.Name), display.Printable(r.Look))
		}
	}
	_, err := fmt.Fprintln(w, "\n'git ralph status --loop NAME' shows a loop closer; 'git ralph history --loop NAME' its iterations.")
	return err
}

// dailyBudget is the daily budget to show the day's spend against: the highest any of
// the loops last ran with (they are the user's, and usually the same).
func dailyBudget(runs []status.Run) float64 {
	daily := 0.0
	for _, r := range runs {
		if r.Spend != nil {
			daily = max(daily, r.Spend.DailyMaxCost)
		}
	}
	return daily
}

// runState is the state with its reason or its wait: "finished (success)".
func runState(r status.Run, now time.Time) string {
	switch {
	case r.Reason != "":
		return r.State + " (" + r.Reason + ")"
	case r.State == status.StateWaiting && r.LimitFrom != "":
		return fmt.Sprintf("waiting (shared limit, %s left)", display.Duration(r.WaitUntil.Sub(now)))
	case r.State == status.StateWaiting:
		return fmt.Sprintf("waiting (limit, %s left)", display.Duration(r.WaitUntil.Sub(now)))
	}
	return r.State
}

// runIteration is i/N, i of ∞ for an unlimited loop, "-" before any.
func runIteration(r status.Run) string {
	switch {
	case r.Iteration == 0 && r.MaxIterations == 0:
		return "-"
	case r.MaxIterations == 0:
		return strconv.Itoa(r.Iteration) + "/unlimited"
	}
	return fmt.Sprintf("%d/%d", r.Iteration, r.MaxIterations)
}

// runAhead is the number of commits ahead of the loop's base, with the base: "+3 main".
func runAhead(r status.Run) string {
	if r.Ahead == nil {
		return "-"
	}
	base := r.BaseBranch
	if base == "" {
		base = display.ShortHash(r.BaseCommit)
	}
	return fmt.Sprintf("+%d %s", *r.Ahead, base)
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

// withMerges shows the merge queue's states (queued, merging, needs-review, merged) of
// the worktree loops that asked for a merge.
func withMerges(ctx context.Context, here string, members []fleet.Member, runs []status.Run) {
	common, err := gitops.CommonDir(ctx, here)
	if err != nil {
		return
	}
	for i, m := range members {
		if m.Worktree == nil {
			continue
		}
		merge, found, err := history.LoadMerge(common, m.Name)
		if err != nil || !found {
			continue
		}
		tip, _ := gitops.ResolveRef(ctx, here, m.Worktree.Branch)
		status.WithMerge(&runs[i], merge, tip)
	}
}
