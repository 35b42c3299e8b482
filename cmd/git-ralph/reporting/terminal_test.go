//go:build linux

package reporting

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair: what a program writes to tty, the test reads
// from pty.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { pty.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlocking the pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("numbering the pty: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pty's terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return pty, tty
}

func TestFancyTerminalOnlyOnATerminalWithoutNoColor(t *testing.T) {
	_, tty := openPTY(t)
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
