//go:build linux

package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
)

// TestBellRingsOnATerminal: --notify bell writes one BEL to stderr when it is a terminal,
// after the run's summary; on a pipe or a file it writes nothing.
func TestBellRingsOnATerminal(t *testing.T) {
	pty, tty := testio.OpenPTY(t)
	t.Setenv("NO_COLOR", "1")
	scratchRepo(t)
	read := readUntil(pty, "\a")
	args := []string{"loop", "--agent-cmd", "echo working", "--max", "1", "--idle-threshold", "0", "--notify", "bell"}
	if code := run(args, strings.NewReader(""), io.Discard, tty); code != 2 {
		t.Fatalf("loop exited %d, want 2", code)
	}
	select {
	case got := <-read:
		if !strings.Contains(got, "Reached max iterations") || strings.Count(got, "\a") != 1 ||
			strings.Index(got, "\a") < strings.Index(got, "Reached max iterations") {
			t.Errorf("want one bell after the summary: %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no bell on the terminal")
	}
	var pipe bytes.Buffer
	if code := run(append(args, "--fresh"), strings.NewReader(""), io.Discard, &pipe); code != 2 {
		t.Fatalf("loop exited %d, want 2", code)
	}
	if strings.Contains(pipe.String(), "\a") || strings.Contains(pipe.String(), "notification") {
		t.Errorf("bell or warning without a terminal: %q", pipe.String())
	}
}
