package reporting

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// followEvery is how often `logs --follow` looks for new lines.
const followEvery = 250 * time.Millisecond

// LogLine shows a line of the structured log: formatted, or raw with --json; lines that
// are not records as they are too (a torn line is shown, never dropped), their control
// characters spelled out, unless the filter picks records (of one run, of a level).
func LogLine(raw bool, filter LogFilter, loc *time.Location) func([]byte) (string, bool) {
	return func(line []byte) (string, bool) {
		if len(line) == 0 {
			return "", false
		}
		rec, ok := parseLogRecord(line)
		switch {
		case !filter.keeps(rec, ok):
			return "", false
		case ok && !raw:
			return rec.format(loc), true
		case !ok:
			// anything can be written into the file (a repository can commit it): what
			// would drive the terminal is spelled out
			return display.PrintableText(string(line)), true
		}
		return string(line), true
	}
}

// LogFilter chooses the records `logs` shows; the zero filter shows every line. A line
// that is not a record passes only the zero filter.
type LogFilter struct {
	Run   string // only this run's records
	Level string // only records at this level or above: debug, info, warn, error
}

// keeps reports whether the filter lets rec (ok: the line is a record) through.
func (f LogFilter) keeps(rec logRecord, ok bool) bool {
	if f == (LogFilter{}) {
		return true
	}
	if !ok || f.Run != "" && rec.run != f.Run {
		return false
	}
	if f.Level == "" {
		return true
	}
	var at slog.Level
	return at.UnmarshalText([]byte(rec.level)) == nil && at >= logLevel(f.Level)
}

// LinePrinter prints the lines that show accepts, as show renders them; until flush it
// holds back all but the last ones when only the last are wanted.
type LinePrinter struct {
	w    io.Writer
	show func([]byte) (string, bool)
	last int      // > 0: keep only this many until flush
	held []string // the last lines so far
}

// NewLinePrinter prints to w the lines show accepts, as show renders them; last > 0
// holds back all but the last that many until Flush.
func NewLinePrinter(w io.Writer, show func([]byte) (string, bool), last int) *LinePrinter {
	return &LinePrinter{w: w, show: show, last: last}
}

// Add takes one line (without its newline).
func (p *LinePrinter) Add(line []byte) error {
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

// Flush prints the held lines; from then on Add prints at once.
func (p *LinePrinter) Flush() error {
	for _, text := range p.held {
		if _, err := fmt.Fprintln(p.w, text); err != nil {
			return err
		}
	}
	p.held, p.last = nil, 0
	return nil
}

// AsIs shows every line unchanged.
func AsIs(line []byte) (string, bool) { return string(line), true }

// ReadLog passes each line of the file at path to add, an unfinished last line too.
func ReadLog(path string, add func([]byte) error) error {
	t := NewLogTail(path)
	defer t.Close()
	if err := t.ReadNew(add); err != nil {
		return err
	}
	return t.FlushPartial(add)
}

// LogTail reads a log that is being written to and rotated: each poll passes the lines
// completed since the last one. An unfinished last line waits for its end, unless the file
// was rotated away, in which case it is passed as it is.
type LogTail struct {
	path    string
	f       *os.File // nil until the file exists
	pending []byte   // the start of an unfinished line
	buf     []byte
}

// NewLogTail reads the file at path, which need not exist yet.
func NewLogTail(path string) *LogTail { return &LogTail{path: path} }

// Poll reads what has been written since the last poll, following a rotation.
func (t *LogTail) Poll(add func([]byte) error) error {
	for {
		if err := t.ReadNew(add); err != nil || t.f == nil || !t.replaced() {
			return err
		}
		// rotated: the old file is complete; go on with the new one at once
		if err := t.FlushPartial(add); err != nil {
			return err
		}
		t.Close()
	}
}

// ReadNew opens the file if it exists and is not open yet, then passes every line
// completed since the last read.
func (t *LogTail) ReadNew(add func([]byte) error) error {
	if t.f == nil {
		if opened, err := t.open(); !opened {
			return err
		}
	}
	return t.readAvailable(add)
}

// open opens the file if it exists now. A file refused (a symlink or a FIFO in its
// place) is an error, not a log that is not there yet.
func (t *LogTail) open() (bool, error) {
	f, err := repofile.OpenOwn(t.path, t.path) // a FIFO committed in its place must not hang 'logs -f', a symlink not lead elsewhere
	var refused *repofile.RefusedError
	if errors.As(err, &refused) {
		return false, err
	}
	if err != nil {
		return false, nil
	}
	t.f = f
	return true, nil
}

// readAvailable reads to the end of the file and passes on every complete line.
func (t *LogTail) readAvailable(add func([]byte) error) error {
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
func (t *LogTail) passLines(add func([]byte) error) error {
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
func (t *LogTail) replaced() bool {
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

// FlushPartial passes an unfinished last line as it is.
func (t *LogTail) FlushPartial(add func([]byte) error) error {
	if len(t.pending) == 0 {
		return nil
	}
	err := add(t.pending)
	t.pending = t.pending[:0]
	return err
}

func (t *LogTail) Close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// EveryTick calls step every followEvery until it reports done or fails, or ctx ends
// (Ctrl+C ends a follow normally).
func EveryTick(ctx context.Context, step func() (done bool, err error)) error {
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

// CopyNew copies what has been written to the tail's file since the last copy.
func CopyNew(w io.Writer, out *LogTail) error {
	if out.f == nil {
		if opened, err := out.open(); !opened {
			return err
		}
	}
	if _, err := io.Copy(w, out.f); err != nil {
		return fmt.Errorf("printing %s: %w", out.path, err)
	}
	return nil
}
