package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/historyview"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/fielderr"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts/repofile"
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
	return c.printLog(ctx, s, root)
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
	return checkLevel(c.Level)
}

// logLevels are the levels of the structured log, lowest first.
var logLevels = []string{"debug", "info", "warn", "error"}

// checkLevel refuses a --level that is not a level of the log, with the one meant.
func checkLevel(level string) error {
	if level == "" || slices.Contains(logLevels, level) {
		return nil
	}
	hint := "use one of: " + strings.Join(logLevels, ", ")
	if near := nearLevel(level); near != "" {
		hint = "did you mean " + near + "? " + hint
	}
	return hints.Wrap(fmt.Errorf("--level: want one of %s, got %q", strings.Join(logLevels, ", "), level), "%s", hint)
}

// nearLevel is the level a misspelt one means: the nearest by edit distance, else the one
// it begins with ("warning", "errors").
func nearLevel(level string) string {
	if near := fielderr.Suggest(level, logLevels); near != "" {
		return near
	}
	for _, l := range logLevels {
		if strings.HasPrefix(strings.ToLower(level), l) {
			return l
		}
	}
	return ""
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

// printLog prints the structured log, its rotated files first, then follows it if asked.
func (c *LogsCmd) printLog(ctx context.Context, s Streams, root string) error {
	path := history.LogPath(root)
	files := history.LogFiles(path)
	if len(files) == 0 {
		fmt.Fprintf(s.Stderr, "no log yet in %s; it starts with the first 'git ralph loop'\n", filepath.Join(history.LogsDir, history.LogFile))
		if !c.Follow {
			return nil
		}
	}
	p := reporting.NewLinePrinter(s.Stdout, reporting.LogLine(c.JSON, reporting.LogFilter{Run: c.RunID, Level: c.Level}, time.Local), c.Lines)
	for _, file := range files {
		if file == path && c.Follow {
			break // read by the tail below, which keeps reading it
		}
		if err := reporting.ReadLog(file, p.Add); err != nil {
			return err
		}
	}
	if !c.Follow {
		return p.Flush()
	}
	live := reporting.NewLogTail(path)
	defer live.Close()
	if err := live.Poll(p.Add); err != nil {
		return err
	}
	if err := p.Flush(); err != nil {
		return err
	}
	return reporting.EveryTick(ctx, func() (bool, error) { return false, live.Poll(p.Add) })
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
	path, finished, err := outputOf(store, root, n, s.Stderr)
	if err != nil {
		return err
	}
	if !finished {
		fmt.Fprintf(s.Stderr, "iteration %d has no record yet: it is still running, or its loop stopped before saving it; this is its output so far\n", n)
	}
	out := reporting.NewLogTail(path)
	defer out.Close()
	p := reporting.NewLinePrinter(s.Stdout, reporting.AsIs, c.Lines)
	read, finish := func() error { return out.ReadNew(p.Add) }, func() error { return out.FlushPartial(p.Add) }
	if c.Lines == 0 { // byte for byte: the output need not end with a newline
		read, finish = func() error { return reporting.CopyNew(s.Stdout, out) }, func() error { return nil }
	}
	if err := read(); err != nil {
		return err
	}
	if !c.Follow || finished {
		if err := finish(); err != nil {
			return err
		}
		return p.Flush()
	}
	if err := p.Flush(); err != nil {
		return err
	}
	return followOutput(ctx, store, n, read, finish)
}

// followOutput polls a running iteration's output until its record is saved, then reads
// the rest and stops.
func followOutput(ctx context.Context, store *history.Store, n int, poll, finish func() error) error {
	return reporting.EveryTick(ctx, func() (bool, error) {
		_, recErr := store.Get(n) // before reading, so that nothing written before the record is missed
		if err := poll(); err != nil {
			return true, err
		}
		if recErr != nil {
			return false, nil
		}
		return true, finish()
	})
}

// outputOf finds iteration n's saved output: the path its record names, or, without a
// record (the iteration runs, or its loop died), the path it is written to. A damaged
// record does not hide an output that is there: warn names the record, and the output
// is shown all the same.
func outputOf(store *history.Store, root string, n int, warn io.Writer) (path string, finished bool, err error) {
	rec, err := store.Get(n)
	if errors.Is(err, history.ErrNoRecord) {
		if _, statErr := os.Stat(store.OutputPath(n)); statErr == nil {
			return store.OutputPath(n), false, nil
		}
		return "", false, hints.MissingIteration(store, n, "saved output")
	}
	if err != nil {
		if _, statErr := os.Stat(store.OutputPath(n)); statErr != nil {
			return "", false, err
		}
		fmt.Fprintf(warn, "warning: %s\nthis is the output saved for iteration %d\n", display.PrintableText(err.Error()), n)
		return store.OutputPath(n), true, nil
	}
	path = rec.OutputPath
	if rec.Pruned {
		return "", true, hints.Wrap(fmt.Errorf("iteration %d's output was pruned by the history's retention settings", n),
			"history_keep and history_max_size say how much is kept ('git ralph config')")
	}
	if path == "" {
		return "", true, hints.Wrap(fmt.Errorf("iteration %d kept no output", n), "'git ralph history --diff %d' shows what it changed", n)
	}
	// The output is where the loop saves it, whatever the record says: a record can be
	// committed, naming any file of the machine (output_path = "/home/you/.ssh/id_rsa").
	path = store.OutputPath(n)
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return "", true, &repofile.RefusedError{Path: path, Reason: "it is not a regular file (a symlink, a FIFO…), which git-ralph does not read as its own output"}
	}
	if _, err := os.Stat(path); err != nil {
		return "", true, hints.Wrap(fmt.Errorf("iteration %d's output is no longer kept: %w", n, err), "'git ralph history --diff %d' shows what it changed", n)
	}
	return path, true, nil
}
