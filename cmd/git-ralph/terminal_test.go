//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/internal/testio"
)

// readUntil reads pty on a goroutine of its own until what it read holds marker (or the
// read fails), then sends all it read.
func readUntil(pty *os.File, marker string) <-chan string {
	read := make(chan string, 1)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := pty.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil || bytes.Contains(all, []byte(marker)) {
				read <- string(all)
				return
			}
		}
	}()
	return read
}

// TestLoopOnATerminal runs a loop with its progress on a pseudo-terminal: a live status
// line shows during the iteration, and NO_COLOR turns every control character off.
func TestLoopOnATerminal(t *testing.T) {
	for _, noColor := range []string{"", "1"} {
		t.Run("NO_COLOR="+noColor, func(t *testing.T) {
			pty, tty := testio.OpenPTY(t)
			t.Setenv("NO_COLOR", noColor)
			t.Setenv("TERM", "xterm")
			scratchRepo(t)
			read := readUntil(pty, "Reached max iterations")
			code := run([]string{"loop", "--agent-cmd", "echo working; sleep 1.5", "--max", "1", "--idle-threshold", "0"},
				strings.NewReader(""), io.Discard, tty)
			if code != 2 {
				t.Fatalf("loop exited %d, want 2", code)
			}
			var got string
			select {
			case got = <-read:
			case <-time.After(10 * time.Second):
				t.Fatal("the loop's progress never reached the terminal")
			}
			status := strings.Contains(got, "\r  iteration 1/1: 1s, 8 B of output \x1b[K")
			if noColor == "" && !status {
				t.Errorf("no live status line on the terminal: %q", got)
			}
			if noColor != "" && strings.Contains(got, "\x1b") {
				t.Errorf("NO_COLOR=1: escape codes on the terminal: %q", got)
			}
		})
	}
}

// scratchRepo makes a repository with a build prompt in a temporary directory and
// changes into it for the test.
func scratchRepo(t *testing.T) {
	gittest.Isolate(t)
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("PROMPT_build.md", []byte("Build one thing.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "init", "-q") // on git's default branch, which the views show
	gittest.Git(t, dir, "add", "PROMPT_build.md")
	gittest.Git(t, dir, "commit", "-q", "-m", "base")
}

// TestTrustFromDevNullRefuses: with stdin on /dev/null there is no one to ask, so trust
// refuses and names --yes rather than reading an empty answer.
func TestTrustFromDevNullRefuses(t *testing.T) {
	scratchRepo(t)
	if err := os.MkdirAll(".ralph", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(".ralph/config.toml", []byte("validate = \"true\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var stderr bytes.Buffer
	if code := run([]string{"trust"}, null, io.Discard, &stderr); code != 1 {
		t.Fatalf("trust </dev/null exited %d, want 1; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "hint:") || !strings.Contains(stderr.String(), "--yes") {
		t.Errorf("no hint naming --yes:\n%s", stderr.String())
	}
}

// TestInjectFromDevNullReadsEmptyInput: `inject - </dev/null` reads stdin (empty), it
// does not take /dev/null for a terminal.
func TestInjectFromDevNullReadsEmptyInput(t *testing.T) {
	scratchRepo(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var stderr bytes.Buffer
	if code := run([]string{"inject", "-"}, null, io.Discard, &stderr); code != 1 {
		t.Fatalf("inject - </dev/null exited %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "error: nothing to inject: the text is empty") {
		t.Errorf("want the empty-text error, got:\n%s", stderr.String())
	}
}
