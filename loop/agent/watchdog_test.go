//go:build unix

package agent

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

// The run's watchdog is shared by its agents, and one that ended (killed by someone) is
// replaced for the next agent rather than leaving it unguarded.
func TestWatchdogsShareOneAndReplaceADeadOne(t *testing.T) {
	starts := 0
	dogs := NewWatchdogs(func(string, time.Duration) *exec.Cmd {
		starts++
		return exec.Command("cat")
	})
	defer dogs.Close()
	first := dogs.get("RALPH_RUN=x", time.Second)
	if first == nil {
		t.Fatal("no watchdog started")
	}
	if again := dogs.get("RALPH_RUN=x", time.Second); again != first || starts != 1 {
		t.Fatalf("a second agent got another watchdog (%d started), want the same one", starts)
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first.gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the killed watchdog was not reaped")
	}
	next := dogs.get("RALPH_RUN=x", time.Second)
	if next == nil || next == first || starts != 2 {
		t.Fatalf("after the watchdog was killed the next agent got %v (%d started), want a new one", next, starts)
	}
	// the dead one's end of its pipe is closed, not kept open for the rest of the run
	if _, err := first.pipe.Write([]byte{'.'}); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("writing to the replaced watchdog's pipe: %v, want it closed", err)
	}
	dogs.Close()
	select {
	case <-next.gone:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the watchdog")
	}
}
