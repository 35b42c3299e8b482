package livelog

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// The tail renders complete lines only, as the log grows, and holds a line still being
// written until its line break.
func TestTailFollowsTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output.log")
	tl := New(path, agentcli.Text)
	if got := tl.Read(); got != nil {
		t.Fatalf("no log yet: got %q", got)
	}
	write(t, path, "one\ntw")
	if got := tl.Read(); strings.Join(got, "|") != "one" {
		t.Fatalf("got %q, want [one]", got)
	}
	write(t, path, "one\ntwo\nthree\n")
	if got := tl.Read(); strings.Join(got, "|") != "two|three" {
		t.Fatalf("got %q, want [two three]", got)
	}
}

// Joining a long log late reads only its end, dropping the cut line.
func TestTailReadsOnlyTheEndOfALongLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output.log")
	long := strings.Repeat("x", MaxRead) + "\nlast\n"
	write(t, path, long)
	tl := New(path, agentcli.Text)
	if got := tl.Read(); strings.Join(got, "|") != "last" {
		t.Fatalf("got %d lines, want only [last]", len(got))
	}
}

// A FIFO or a symlink in the log's place is neither waited on nor followed.
func TestTailRefusesAFIFOAndASymlink(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	secret := filepath.Join(dir, "secret")
	write(t, secret, "do not show\n")
	link := filepath.Join(dir, "link.log")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, link} {
		got := make(chan []string, 1)
		go func() { got <- New(path, agentcli.Text).Read() }()
		select {
		case lines := <-got:
			if lines != nil {
				t.Errorf("%s: read %q, want nothing", filepath.Base(path), lines)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: reading blocked", filepath.Base(path))
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A line that never ends (a progress bar redrawn with \r for hours, an agent printing
// without line breaks) is held back only up to MaxLine: then it is left out, said so,
// and the tail goes on from the next line break, its memory bounded.
func TestTailBoundsALineThatNeverEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tl := New(path, agentcli.Text)
	f.WriteString("before\n")
	if got := tl.Read(); strings.Join(got, "|") != "before" {
		t.Fatalf("got %q, want [before]", got)
	}
	chunk := strings.Repeat("\rprogress 42%", MaxRead/13) // under MaxRead a read: no jump
	for written := 0; written < 2*MaxLine; written += len(chunk) {
		f.WriteString(chunk)
		if got := tl.Read(); len(got) > 1 {
			t.Fatalf("the unfinished line gave %d lines", len(got))
		}
		if len(tl.partial) > MaxLine {
			t.Fatalf("%d bytes of an unfinished line held, more than MaxLine (%d)", len(tl.partial), MaxLine)
		}
	}
	f.WriteString(" end\nafter\n")
	got := strings.Join(tl.Read(), "|")
	if got != "after" && !strings.HasSuffix(got, "|after") {
		t.Fatalf("after the long line: got %.200q, want [... after]", got)
	}
}
