package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/historyview"
	"github.com/git-ralph/git-ralph/history"
)

// HistoryCmd is `git ralph history`.
type HistoryCmd struct {
	Limit    int    `default:"20" help:"Show the newest N iterations; 0 shows all (default: 20)." placeholder:"N"`
	JSON     bool   `name:"json" help:"Print the records as a JSON array, oldest first."`
	Diff     string `help:"Print iteration N's saved diff, or with A..B the diff from the start of A to the end of B." placeholder:"N|A..B"`
	Stat     bool   `help:"With --diff, print a diffstat instead of the patch."`
	Verbose  *int   `help:"Print iteration N in full: its record, then the prompt its agent was given (as kept: secrets redacted, at most 256 KiB)." placeholder:"N"`
	LoopFlag `embed:""`
}

// Run prints the table, the JSON records or a diff.
func (c *HistoryCmd) Run(ctx context.Context, s Streams) error {
	if err := c.check(); err != nil {
		return err
	}
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	store, err := history.OpenStore(root)
	if err != nil {
		return err
	}
	if c.Diff != "" {
		return c.printDiff(ctx, s.Stdout, root, store)
	}
	if c.Verbose != nil {
		return historyview.Iteration(s.Stdout, store, *c.Verbose)
	}
	recs, bad, err := store.Scan(c.Limit)
	if err != nil {
		return err
	}
	historyview.ReportBad(s.Stderr, bad)
	if c.JSON {
		return display.JSON(s.Stdout, recs)
	}
	if err := historyview.Table(s.Stdout, recs); err != nil {
		return err
	}
	return historyview.Pruned(s.Stdout, recs)
}

// check refuses combinations of flags that mean nothing.
func (c *HistoryCmd) check() error {
	switch {
	case c.Limit < 0:
		return hints.Wrap(fmt.Errorf("--limit %d is negative", c.Limit), "pass a count, or 0 for the whole history")
	case c.Stat && c.Diff == "":
		return hints.Wrap(errors.New("--stat needs --diff"), "e.g. 'git ralph history --diff 3 --stat'")
	case c.JSON && c.Diff != "":
		return hints.Wrap(errors.New("--json and --diff contradict each other"), "the records are in 'git ralph history --json', the diffs in --diff")
	case c.Verbose != nil && *c.Verbose < 1:
		return hints.Wrap(fmt.Errorf("--verbose %d is not an iteration number", *c.Verbose), "e.g. 'git ralph history --verbose 3'; 'git ralph history' lists the iterations")
	case c.Verbose != nil && (c.JSON || c.Diff != ""):
		return hints.Wrap(errors.New("--verbose shows one iteration, and --json or --diff something else"), "'git ralph history --verbose N' alone, or '--diff N' for its change")
	}
	return nil
}

// printDiff prints the patch or the diffstat of --diff.
func (c *HistoryCmd) printDiff(ctx context.Context, w io.Writer, root string, store *history.Store) error {
	span, err := historyview.ParseSpan(c.Diff)
	if err != nil {
		return err
	}
	if span.Range {
		return historyview.RangeDiff(ctx, w, root, store, span, c.Stat)
	}
	return historyview.SavedDiff(ctx, w, root, store, span.First, c.Stat)
}
