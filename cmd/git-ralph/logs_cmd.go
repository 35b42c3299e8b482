package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/historyview"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/history"
)

// LogsCmd is `git ralph logs [N]`.
type LogsCmd struct {
	Iteration string `arg:"" optional:"" name:"N" help:"Print iteration N's saved agent output instead of the log."`
	JSON      bool   `name:"json" help:"Print the log's JSON records as they are, one a line."`
	Lines     int    `short:"n" placeholder:"K" help:"Show only the last K records (with N, the last K lines of the output); 0 shows all (default: all)."`
	RunID     string `name:"run" placeholder:"ID" help:"Show only the records of run ID (see 'git ralph status')."`
	Level     string `name:"level" placeholder:"LEVEL" help:"Show only the records at LEVEL or above: debug, info, warn or error (default: all)."`
	Prompt    bool   `name:"prompt" help:"With N: print the prompt iteration N's agent was given, as kept (secrets redacted, at most 256 KiB)."`
	Follow    bool   `short:"f" help:"Keep printing what is written next, until Ctrl+C (with N, until the iteration ends)."`
	LoopFlag  `embed:""`
}

// Run prints the structured log, or iteration N's output.
func (c *LogsCmd) Run(ctx context.Context, s Streams) error {
	if err := c.check(); err != nil {
		return err
	}
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	if err := history.CheckOwnDirs(root); err != nil { // a committed .ralph/logs symlink must not lead the reading elsewhere
		return err
	}
	if c.Prompt {
		return c.printPrompt(s, root)
	}
	if c.Iteration != "" {
		return c.printOutput(ctx, s, root)
	}
	return reporting.PrintLog(ctx, s.Stdout, s.Stderr, root, reporting.LogOptions{JSON: c.JSON,
		Filter: reporting.LogFilter{Run: c.RunID, Level: c.Level}, Lines: c.Lines, Follow: c.Follow})
}

// printOutput prints iteration N's saved agent output, and with --follow what it adds
// until the iteration's record is saved.
func (c *LogsCmd) printOutput(ctx context.Context, s Streams, root string) error {
	n, err := iterationNumber(c.Iteration)
	if err != nil {
		return err
	}
	store, err := history.OpenStore(root)
	if err != nil {
		return err
	}
	return historyview.Output(ctx, s.Stdout, s.Stderr, store, n, c.Lines, c.Follow)
}

// check refuses flags that mean nothing together.
func (c *LogsCmd) check() error {
	switch {
	case c.Lines < 0:
		return hints.Wrap(fmt.Errorf("--lines %d is negative", c.Lines), "pass a count, or 0 for everything")
	case c.Iteration != "" && c.JSON:
		return hints.Wrap(errors.New("--json applies to the structured log, not to an iteration's output"), "drop N to see the log as JSON, or --json to see iteration %s's output", c.Iteration)
	case c.Iteration != "" && c.RunID != "":
		return hints.Wrap(errors.New("--run filters the structured log, not an iteration's output"), "'git ralph history' shows which run each iteration belongs to")
	case c.Iteration != "" && c.Level != "":
		return hints.Wrap(errors.New("--level filters the structured log, not an iteration's output"), "drop N to see the log's records at %s and above", c.Level)
	case c.Prompt && c.Iteration == "":
		return hints.Wrap(errors.New("--prompt needs an iteration"), "e.g. 'git ralph logs 3 --prompt'; 'git ralph history' lists the iterations")
	case c.Prompt && c.Follow:
		return hints.Wrap(errors.New("--prompt prints a prompt kept whole before its agent started; there is nothing to follow"), "drop --follow, or --prompt to follow the output")
	}
	return reporting.CheckLevel(c.Level)
}

// printPrompt prints the prompt iteration N's agent was given, as the history keeps it,
// with what would drive the terminal spelled out.
func (c *LogsCmd) printPrompt(s Streams, root string) error {
	n, err := iterationNumber(c.Iteration)
	if err != nil {
		return err
	}
	store, err := history.OpenStore(root)
	if err != nil {
		return err
	}
	prompt, err := historyview.KeptPrompt(store, n)
	if err != nil {
		return err
	}
	p := reporting.NewLinePrinter(s.Stdout, reporting.AsIs, c.Lines)
	for _, line := range strings.SplitAfter(historyview.PromptText(prompt), "\n") {
		if line != "" {
			p.Add([]byte(strings.TrimSuffix(line, "\n")))
		}
	}
	return p.Flush()
}

// iterationNumber reads the N of 'logs N'.
func iterationNumber(arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		return 0, hints.Wrap(fmt.Errorf("%q is not an iteration number", arg), "e.g. 'git ralph logs 3'; 'git ralph history' lists the iterations")
	}
	return n, nil
}
