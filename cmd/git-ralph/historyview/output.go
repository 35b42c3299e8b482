package historyview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Output prints iteration n's saved agent output (its last lines, 0: all of it, byte for
// byte), and with follow what it adds until the iteration's record is saved; stderr
// says what is not a finished iteration's whole output.
func Output(ctx context.Context, stdout, stderr io.Writer, store *history.Store, n, lines int, follow bool) error {
	path, finished, err := outputOf(store, n, stderr)
	if err != nil {
		return err
	}
	if !finished {
		fmt.Fprintf(stderr, "iteration %d has no record yet: it is still running, or its loop stopped before saving it; this is its output so far\n", n)
	}
	out := reporting.NewLogTail(path)
	defer out.Close()
	p := reporting.NewLinePrinter(stdout, reporting.AsIs, lines)
	read, finish := func() error { return out.ReadNew(p.Add) }, func() error { return out.FlushPartial(p.Add) }
	if lines == 0 { // byte for byte: the output need not end with a newline
		read, finish = func() error { return reporting.CopyNew(stdout, out) }, func() error { return nil }
	}
	if err := read(); err != nil {
		return err
	}
	if !follow || finished {
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
func outputOf(store *history.Store, n int, warn io.Writer) (path string, finished bool, err error) {
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
