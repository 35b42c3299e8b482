package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// LogsCmd is `git ralph logs [N]`.
type LogsCmd struct {
	Iteration string `arg:"" optional:"" name:"N" help:"Print iteration N's saved agent output instead of the log."`
	JSON      bool   `name:"json" help:"Print the log's JSON records as they are, one a line."`
	Lines     int    `short:"n" placeholder:"K" help:"Show only the last K records (with N, the last K lines of the output); 0 shows all (default: all)."`
	RunID     string `name:"run" placeholder:"ID" help:"Show only the records of run ID (see 'git ralph status')."`
	Follow    bool   `short:"f" help:"Keep printing what is written next, until Ctrl+C (with N, until the iteration ends)."`
}

// followEvery is how often --follow looks for new lines.
const followEvery = 250 * time.Millisecond

// Run prints the structured log, or iteration N's output.
func (c *LogsCmd) Run(ctx context.Context, s Streams) error {
	if err := c.check(); err != nil {
		return err
	}
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	if c.Iteration != "" {
		err = c.printOutput(ctx, s, root)
	} else {
		err = c.printLog(ctx, s, root)
	}
	if errors.Is(err, syscall.EPIPE) {
		return nil // the reader has seen enough: `git ralph logs | head`
	}
	return err
}

// check refuses flags that mean nothing together.
func (c *LogsCmd) check() error {
	switch {
	case c.Lines < 0:
		return withHint(fmt.Errorf("--lines %d is negative", c.Lines), "pass a count, or 0 for everything")
	case c.Iteration != "" && c.JSON:
		return withHint(errors.New("--json applies to the structured log, not to an iteration's output"), "drop N to see the log as JSON, or --json to see iteration %s's output", c.Iteration)
	case c.Iteration != "" && c.RunID != "":
		return withHint(errors.New("--run filters the structured log, not an iteration's output"), "'git ralph history' shows which run each iteration belongs to")
	}
	return nil
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
	p := &linePrinter{w: s.Stdout, last: c.Lines, show: logLine(c.JSON, c.RunID, time.Local)}
	for _, file := range files {
		if file == path && c.Follow {
			break // read by the tail below, which keeps reading it
		}
		if err := readLog(file, p.add); err != nil {
			return err
		}
	}
	if !c.Follow {
		return p.flush()
	}
	live := &logTail{path: path}
	defer live.close()
	if err := live.poll(p.add); err != nil {
		return err
	}
	if err := p.flush(); err != nil {
		return err
	}
	return everyTick(ctx, func() (bool, error) { return false, live.poll(p.add) })
}

// logLine shows a line of the structured log: formatted, or raw with --json; lines that
// are not records as they are too (a torn line is shown, never dropped), their control
// characters spelled out, unless only one run's records are wanted.
func logLine(raw bool, run string, loc *time.Location) func([]byte) (string, bool) {
	return func(line []byte) (string, bool) {
		if len(line) == 0 {
			return "", false
		}
		rec, ok := parseLogRecord(line)
		switch {
		case run != "" && (!ok || rec.run != run):
			return "", false
		case ok && !raw:
			return rec.format(loc), true
		case !ok:
			// anything can be written into the file (a repository can commit it): what
			// would drive the terminal is spelled out
			return printableText(string(line)), true
		}
		return string(line), true
	}
}

// linePrinter prints the lines that show accepts, as show renders them; until flush it
// holds back all but the last ones when only the last are wanted.
type linePrinter struct {
	w    io.Writer
	show func([]byte) (string, bool)
	last int      // > 0: keep only this many until flush
	held []string // the last lines so far
}

// add takes one line (without its newline).
func (p *linePrinter) add(line []byte) error {
	text, ok := p.show(line)
	if !ok {
		return nil
	}
	if p.last > 0 {
		if len(p.held) == p.last {
			p.held = p.held[1:]
		}
		p.held = append(p.held, text)
		return nil
	}
	_, err := fmt.Fprintln(p.w, text)
	return err
}

// flush prints the held lines; from then on add prints at once.
func (p *linePrinter) flush() error {
	for _, text := range p.held {
		if _, err := fmt.Fprintln(p.w, text); err != nil {
			return err
		}
	}
	p.held, p.last = nil, 0
	return nil
}

// asIs shows every line unchanged.
func asIs(line []byte) (string, bool) { return string(line), true }

// readLog passes each line of the file at path to add, an unfinished last line too.
func readLog(path string, add func([]byte) error) error {
	t := &logTail{path: path}
	defer t.close()
	if err := t.readNew(add); err != nil {
		return err
	}
	return t.flushPartial(add)
}

// logTail reads a log that is being written to and rotated: each poll passes the lines
// completed since the last one. An unfinished last line waits for its end, unless the file
// was rotated away, in which case it is passed as it is.
type logTail struct {
	path    string
	f       *os.File // nil until the file exists
	pending []byte   // the start of an unfinished line
	buf     []byte
}

// poll reads what has been written since the last poll, following a rotation.
func (t *logTail) poll(add func([]byte) error) error {
	for {
		if err := t.readNew(add); err != nil || t.f == nil || !t.replaced() {
			return err
		}
		// rotated: the old file is complete; go on with the new one at once
		if err := t.flushPartial(add); err != nil {
			return err
		}
		t.close()
	}
}

// readNew opens the file if it exists and is not open yet, then passes every line
// completed since the last read.
func (t *logTail) readNew(add func([]byte) error) error {
	if t.f == nil && !t.open() {
		return nil
	}
	return t.readAvailable(add)
}

// open opens the file if it exists now.
func (t *logTail) open() bool {
	f, err := repofile.OpenOwn(t.path, t.path) // a FIFO committed in its place must not hang 'logs -f', a symlink not lead elsewhere
	if err != nil {
		return false
	}
	t.f = f
	return true
}

// readAvailable reads to the end of the file and passes on every complete line.
func (t *logTail) readAvailable(add func([]byte) error) error {
	if t.buf == nil {
		t.buf = make([]byte, 64<<10)
	}
	for {
		n, err := t.f.Read(t.buf)
		t.pending = append(t.pending, t.buf[:n]...)
		if lerr := t.passLines(add); lerr != nil {
			return lerr
		}
		if errors.Is(err, io.EOF) || n == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", t.path, err)
		}
	}
}

// passLines passes the complete lines in pending and keeps the rest.
func (t *logTail) passLines(add func([]byte) error) error {
	start := 0
	for i, b := range t.pending {
		if b == '\n' {
			if err := add(t.pending[start:i]); err != nil {
				return err
			}
			start = i + 1
		}
	}
	t.pending = append(t.pending[:0], t.pending[start:]...)
	return nil
}

// replaced reports whether the path now names another file than the one open (rotation),
// or whether the open one shrank (truncation, after which it is read from its start).
func (t *logTail) replaced() bool {
	now, err := os.Stat(t.path)
	if err != nil {
		return false // moved away and not yet recreated: wait
	}
	open, err := t.f.Stat()
	if err != nil || !os.SameFile(now, open) {
		return true
	}
	if offset, err := t.f.Seek(0, io.SeekCurrent); err == nil && open.Size() < offset {
		t.f.Seek(0, io.SeekStart)
		t.pending = t.pending[:0]
	}
	return false
}

// flushPartial passes an unfinished last line as it is.
func (t *logTail) flushPartial(add func([]byte) error) error {
	if len(t.pending) == 0 {
		return nil
	}
	err := add(t.pending)
	t.pending = t.pending[:0]
	return err
}

func (t *logTail) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// everyTick calls step every followEvery until it reports done or fails, or ctx ends
// (Ctrl+C ends a follow normally).
func everyTick(ctx context.Context, step func() (done bool, err error)) error {
	ticker := time.NewTicker(followEvery)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			done, err := step()
			if done || err != nil {
				return err
			}
		}
	}
}

// printOutput prints iteration N's saved agent output, and with --follow what it adds
// until the iteration's record is saved.
func (c *LogsCmd) printOutput(ctx context.Context, s Streams, root string) error {
	n, err := strconv.Atoi(c.Iteration)
	if err != nil || n < 1 {
		return withHint(fmt.Errorf("%q is not an iteration number", c.Iteration), "e.g. 'git ralph logs 3'; 'git ralph history' lists the iterations")
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
	out := &logTail{path: path}
	defer out.close()
	p := &linePrinter{w: s.Stdout, show: asIs, last: c.Lines}
	read, finish := func() error { return out.readNew(p.add) }, func() error { return out.flushPartial(p.add) }
	if c.Lines == 0 { // byte for byte: the output need not end with a newline
		read, finish = func() error { return copyNew(s.Stdout, out) }, func() error { return nil }
	}
	if err := read(); err != nil {
		return err
	}
	if !c.Follow || finished {
		if err := finish(); err != nil {
			return err
		}
		return p.flush()
	}
	if err := p.flush(); err != nil {
		return err
	}
	return followOutput(ctx, store, n, read, finish)
}

// copyNew copies what has been written to the tail's file since the last copy.
func copyNew(w io.Writer, out *logTail) error {
	if out.f == nil && !out.open() {
		return nil
	}
	if _, err := io.Copy(w, out.f); err != nil {
		return fmt.Errorf("printing %s: %w", out.path, err)
	}
	return nil
}

// followOutput polls a running iteration's output until its record is saved, then reads
// the rest and stops.
func followOutput(ctx context.Context, store *history.Store, n int, poll, finish func() error) error {
	return everyTick(ctx, func() (bool, error) {
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
		return "", false, missingIteration(store, n, "saved output")
	}
	if err != nil {
		if _, statErr := os.Stat(store.OutputPath(n)); statErr != nil {
			return "", false, err
		}
		fmt.Fprintf(warn, "warning: %s\nthis is the output saved for iteration %d\n", printableText(err.Error()), n)
		return store.OutputPath(n), true, nil
	}
	path = rec.OutputPath
	if rec.Pruned {
		return "", true, withHint(fmt.Errorf("iteration %d's output was pruned by the history's retention settings", n),
			"history_keep and history_max_size say how much is kept ('git ralph config')")
	}
	if path == "" {
		return "", true, withHint(fmt.Errorf("iteration %d kept no output", n), "'git ralph history --diff %d' shows what it changed", n)
	}
	// The output is where the loop saves it, whatever the record says: a record can be
	// committed, naming any file of the machine (output_path = "/home/you/.ssh/id_rsa").
	path = store.OutputPath(n)
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return "", true, &repofile.RefusedError{Path: path, Reason: "it is not a regular file (a symlink, a FIFO…), which git-ralph does not read as its own output"}
	}
	if _, err := os.Stat(path); err != nil {
		return "", true, withHint(fmt.Errorf("iteration %d's output is no longer kept: %w", n, err), "'git ralph history --diff %d' shows what it changed", n)
	}
	return path, true, nil
}
