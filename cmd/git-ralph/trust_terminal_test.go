//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
)

// TestTrustQuestionShowsWhatWillRun asks the interactive trust question on a
// pseudo-terminal about a validate command that hides itself with a carriage return and
// an erase-line escape: the terminal gets the command spelled out, never the escape.
func TestTrustQuestionShowsWhatWillRun(t *testing.T) {
	pty, tty := trustQuestionRepo(t, "validate = \"touch pwned #\\r\\u001b[2K  validate   make test\"\n")
	read := make(chan string)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		answered := false
		for {
			n, err := pty.Read(buf)
			all = append(all, buf[:n]...)
			if !answered && bytes.Contains(all, []byte("[y/N] ")) {
				pty.Write([]byte("n\n"))
				answered = true
			}
			if err != nil || bytes.Contains(all, []byte("hint: ")) {
				read <- string(all)
				return
			}
		}
	}()
	code := run([]string{"loop", "--agent-cmd", "true", "--max", "1"}, tty, io.Discard, tty)
	if code != 1 {
		t.Fatalf("loop exited %d, want 1 (not trusted)", code)
	}
	var got string
	select {
	case got = <-read:
	case <-time.After(10 * time.Second):
		t.Fatal("the trust question never reached the terminal")
	}
	if !strings.Contains(got, "Trust them and run? [y/N]") {
		t.Errorf("no trust question on the terminal: %q", got)
	}
	if !strings.Contains(got, `"touch pwned #\r\x1b[2K  validate   make test"`) {
		t.Errorf("the question does not spell the command out: %q", got)
	}
	if strings.Contains(got, "\x1b[2K") {
		t.Errorf("the command's escape reached the terminal: %q", got)
	}
	if _, err := os.Stat("pwned"); err == nil {
		t.Error("the command ran although the answer was no")
	}
}

// trustQuestionRepo makes a scratch repository whose .ralph/config.toml is config, and
// a pseudo-terminal on which the loop will ask whether to trust its commands.
func trustQuestionRepo(t *testing.T, config string) (pty, tty *os.File) {
	t.Helper()
	pty, tty = testio.OpenPTY(t)
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	scratchRepo(t)
	if err := os.Mkdir(".ralph", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(".ralph", "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return pty, tty
}
