package status

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// RunsOf reads what each of the loops last wrote, with its merge's state: the runs that
// `runs` lists and the dashboard shows.
func RunsOf(ctx context.Context, here string, members []fleet.Member, now time.Time) []Run {
	runs := make([]Run, 0, len(members))
	for _, m := range members {
		runs = append(runs, ReadRun(ctx, here, m, now))
	}
	withMerges(ctx, here, members, runs)
	return runs
}

// withMerges shows the merge queue's states (queued, merging, needs-review, merged) of
// the worktree loops that asked for a merge.
func withMerges(ctx context.Context, here string, members []fleet.Member, runs []Run) {
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
		WithMerge(&runs[i], merge, tip)
	}
}

// RunsTable prints the header and one line per loop, in aligned columns.
func RunsTable(w io.Writer, runs []Run, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, runsHeader)
	for _, r := range runs {
		fmt.Fprintln(tw, runRow(r, now))
	}
	return tw.Flush()
}

// runsHeader is the header of the table of loops, its columns apart by tabs.
const runsHeader = "NAME\tBRANCH\tSTATE\tITERATION\tLAST OUTCOME\tVALIDATION\tAHEAD\tPATH"

// runRow is one loop's line of the table, its cells apart by tabs.
func runRow(r Run, now time.Time) string {
	return strings.Join([]string{display.Printable(r.Name), display.Printable(display.OrDash(r.Branch)),
		display.Printable(runState(r, now)), IterationText(r), display.Printable(display.OrDash(r.LastOutcome)),
		display.Printable(display.OrDash(r.Validation)), runAhead(r), display.Printable(r.Path)}, "\t")
}

// PrintRuns prints one line per loop, then how to look closer.
func PrintRuns(w io.Writer, runs []Run, now time.Time) error {
	if err := RunsTable(w, runs, now); err != nil {
		return err
	}
	for _, r := range runs {
		if r.Problem != "" {
			fmt.Fprintf(w, "%s: %s\n", display.Printable(r.Name), display.PrintableText(r.Problem))
		}
		if r.State == StateDiscarded && r.Backup != "" {
			fmt.Fprintf(w, "%s: discarded; '%s' brings its branch back ('git ralph prune' forgets it)\n", display.Printable(r.Name), display.Printable(r.Look))
		}
		if r.Spend != nil {
			fmt.Fprintf(w, "%s: spend %s\n", display.Printable(r.Name), r.Spend.Line())
		}
		if r.State == StateGone {
			fmt.Fprintf(w, "%s: its worktree is gone; '%s' checks its branch out again\n", display.Printable(r.Name), display.Printable(r.Look))
		}
	}
	_, err := fmt.Fprintln(w, "\n'git ralph status --loop NAME' shows a loop closer; 'git ralph history --loop NAME' its iterations.")
	return err
}

// DailyBudget is the daily budget to show the day's spend against: the highest any of
// the loops last ran with (they are the user's, and usually the same).
func DailyBudget(runs []Run) float64 {
	daily := 0.0
	for _, r := range runs {
		if r.Spend != nil {
			daily = max(daily, r.Spend.DailyMaxCost)
		}
	}
	return daily
}

// runState is the state with its reason or its wait: "finished (success)".
func runState(r Run, now time.Time) string {
	switch {
	case r.Reason != "":
		return r.State + " (" + r.Reason + ")"
	case r.State == StateWaiting && r.LimitFrom != "":
		return fmt.Sprintf("waiting (shared limit, %s left)", display.Duration(r.WaitUntil.Sub(now)))
	case r.State == StateWaiting:
		return fmt.Sprintf("waiting (limit, %s left)", display.Duration(r.WaitUntil.Sub(now)))
	}
	return r.State
}

// IterationText is a run's iteration as runs and the dashboard show it: i/N,
// i/unlimited, "-" before any.
func IterationText(r Run) string {
	switch {
	case r.Iteration == 0 && r.MaxIterations == 0:
		return "-"
	case r.MaxIterations == 0:
		return strconv.Itoa(r.Iteration) + "/unlimited"
	}
	return fmt.Sprintf("%d/%d", r.Iteration, r.MaxIterations)
}

// runAhead is the number of commits ahead of the loop's base, with the base: "+3 main".
func runAhead(r Run) string {
	if r.Ahead == nil {
		return "-"
	}
	base := r.BaseBranch
	if base == "" {
		base = display.ShortHash(r.BaseCommit)
	}
	return fmt.Sprintf("+%d %s", *r.Ahead, base)
}
