//go:build linux

package reporting

import (
	"os"
	"testing"

	"github.com/git-ralph/git-ralph/internal/testio"
)

func TestFancyTerminalOnlyOnATerminalWithoutNoColor(t *testing.T) {
	_, tty := testio.OpenPTY(t)
	t.Setenv("TERM", "xterm")
	t.Setenv("NO_COLOR", "")
	if !IsTerminal(tty) || !fancyTerminal(tty) || !fancyTerminal(&LockedWriter{w: tty}) {
		t.Fatal("a pseudo-terminal is not taken for a terminal")
	}
	pipeR, pipeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pipeR.Close()
	defer pipeW.Close()
	if fancyTerminal(pipeW) {
		t.Error("a pipe is taken for a terminal")
	}
	t.Setenv("NO_COLOR", "1")
	if fancyTerminal(tty) {
		t.Error("NO_COLOR=1 still allows redrawn lines")
	}
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "dumb")
	if fancyTerminal(tty) {
		t.Error("TERM=dumb still allows redrawn lines")
	}
}

// TestDevNullIsNoTerminal: /dev/null is a character device, but no terminal; cron and
// `</dev/null` give it as stdin.
func TestDevNullIsNoTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if IsTerminal(null) {
		t.Error("/dev/null is taken for a terminal")
	}
}
