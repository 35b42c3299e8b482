//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
)

// TestCtrlCAtTheTrustQuestionEndsTheLoopAsInterrupted: Ctrl+C while the loop asks on the
// terminal whether to trust a repository's commands ends it at once with 130 (the
// question waited for a line the user never types), and nothing ran.
func TestCtrlCAtTheTrustQuestionEndsTheLoopAsInterrupted(t *testing.T) {
	pty, tty := trustQuestionRepo(t, "validate = \"touch validated\"\n")
	asked := make(chan struct{})
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := pty.Read(buf)
			all = append(all, buf[:n]...)
			if bytes.Contains(all, []byte("[y/N] ")) {
				close(asked)
				io.Copy(io.Discard, pty)
				return
			}
			if err != nil {
				return
			}
		}
	}()
	codes := make(chan int, 1)
	go func() { codes <- run([]string{"loop", "--agent-cmd", "touch ran", "--max", "1"}, tty, io.Discard, tty) }()
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the trust question never reached the terminal")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil { // Ctrl+C: the loop's handler takes it
		t.Fatal(err)
	}
	select {
	case code := <-codes:
		if code != exitcode.Interrupted {
			t.Errorf("loop exited %d, want %d (interrupted)", code, exitcode.Interrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the loop still waits for an answer after Ctrl+C")
	}
	for _, f := range []string{"ran", "validated"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s exists: something ran after Ctrl+C at the question", f)
		}
	}
}
