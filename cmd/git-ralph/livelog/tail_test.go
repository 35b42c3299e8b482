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
