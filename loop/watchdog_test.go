package loop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// One watchdog process serves every agent of a run (its validation commands' too), and
// is told when the run is over. Each started beside every agent, it cost a Go program's
// start per iteration.
func TestOneWatchdogPerRun(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "$RALPH_ITERATION" >> iterations`, 3)
	cfg.ValidateCmd = "true"
	var mu sync.Mutex
	var markers []string
	out := filepath.Join(t.TempDir(), "watchdog.out")
	build := func(marker string, grace time.Duration) *exec.Cmd {
		mu.Lock()
		defer mu.Unlock()
		markers = append(markers, marker)
		return exec.Command("sh", "-c", `cat > "$1"`, "sh", out) // keeps what it is told
	}
	res, err := Run(context.Background(), cfg, Deps{Reporter: &recorder{}, Watchdog: build})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 3 {
		t.Fatalf("%d iterations, want 3", res.Iterations)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(markers) != 1 || markers[0] != "RALPH_RUN="+res.Run {
		t.Fatalf("watchdogs started for %q; want one, for RALPH_RUN=%s", markers, res.Run)
	}
	// released, not left waiting: it was told the run is over (".") and its stdin closed
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, _ := os.ReadFile(out)
		if string(got) == "." {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watchdog was told %q, want %q once the run is over", got, ".")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// panicsAfterIteration is a reporter whose code fails while the run goes on.
type panicsAfterIteration struct{}

func (panicsAfterIteration) Report(e Event) {
	if _, ok := e.(IterationFinished); ok {
		panic("a reporter's bug")
	}
}

// TestAPanicLeavesTheWatchdogOnGuard: a panic that unwinds the run is not the run's
// end: were the watchdog told the run is over, an agent still running (a panic in a
// callback during its run) would outlive the process. Left untold, it sees the process
// die and stops the run's processes.
func TestAPanicLeavesTheWatchdogOnGuard(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "$RALPH_ITERATION" >> iterations`, 3)
	out := filepath.Join(t.TempDir(), "watchdog.out")
	build := func(marker string, grace time.Duration) *exec.Cmd {
		return exec.Command("sh", "-c", `cat > "$1"`, "sh", out)
	}
	func() {
		defer func() {
			if p := recover(); p == nil {
				t.Fatal("the reporter's panic did not reach the caller")
			}
		}()
		Run(context.Background(), cfg, Deps{Reporter: panicsAfterIteration{}, Watchdog: build})
	}()
	for range 100 { // what it was told, had it been told, arrives within moments
		if got, _ := os.ReadFile(out); len(got) > 0 {
			t.Fatalf("the watchdog was told %q when a panic unwound the run, want nothing", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
