package eventhooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/loop"
)

// encodeAny stands for the --json encoder: every event has a JSON form.
func encodeAny(e loop.Event) (string, any, bool) { return fmt.Sprintf("%T", e), e, true }

// close may be called twice, and an event after it is dropped: neither panics.
func TestEventHooksCloseTwiceAndReportAfterClose(t *testing.T) {
	h := New(config.Hooks{OnComplete: config.Value[string]{V: "true"}}, t.TempDir(), encodeAny, func(r Result) {
		t.Errorf("hook failed: %v", r.Err)
	})
	h.Report(loop.RunFinished{Result: loop.Result{Status: loop.StatusSuccess}})
	h.Close(nil)
	h.Close(nil)
	h.Report(loop.RunFinished{Result: loop.Result{Status: loop.StatusSuccess}})
}

// A hook that exits 0 but leaves a process holding its output is not a failure, and
// what it left is killed; a failing hook's leftovers are killed too.
func TestHookLeftoversAreKilled(t *testing.T) {
	dir := t.TempDir()
	ok := runHook(context.Background(), Call{Name: "on_complete", Command: "sleep 30 & echo $! > ok.pid"}, dir, 10*time.Second)
	if ok.Err != nil {
		t.Errorf("hook that exited 0 reported as failed: %v", ok.Err)
	}
	bad := runHook(context.Background(), Call{Name: "on_failure", Command: "sleep 30 >/dev/null 2>&1 & echo $! > bad.pid; exit 3"}, dir, 10*time.Second)
	if bad.Err == nil || !strings.Contains(bad.Err.Error(), "exit status 3") {
		t.Errorf("failing hook: %v", bad.Err)
	}
	for _, f := range []string{"ok.pid", "bad.pid"} {
		waitGone(t, dir, f)
	}
}

// A second Ctrl+C stops the wait for hooks: the running one is killed, the queued ones
// are dropped, and close returns at once.
func TestHurryStopsWaitingForHooks(t *testing.T) {
	dir := t.TempDir()
	var failures []Result
	h := New(config.Hooks{OnIteration: config.Value[string]{V: "echo $$ > hook.pid; exec sleep 30"}},
		dir, encodeAny, func(r Result) { failures = append(failures, r) })
	for i := 1; i <= 3; i++ {
		h.Report(loop.IterationFinished{Iteration: i, Outcome: loop.OutcomeSuccess})
	}
	waitFile(t, filepath.Join(dir, "hook.pid"))
	hurry := make(chan struct{})
	close(hurry)
	start := time.Now()
	h.Close(hurry)
	if took := time.Since(start); took >= 30*time.Second { // what the hook takes
		t.Errorf("close took %s after a second Ctrl+C: it waited for the hook", took)
	}
	if len(failures) != 1 || !strings.Contains(failures[0].Err.Error(), "stop at once") {
		t.Errorf("want the running hook reported as killed and the queued ones dropped, got %+v", failures)
	}
	waitGone(t, dir, "hook.pid")
}

// waitGone fails the test unless the process whose pid is in dir/file was stopped: every
// one the tests start sleeps 30 s, and ending sooner than that is being stopped. It is
// waited for while it lasts, so that a busy machine's slowness does not count.
func waitGone(t *testing.T, dir, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, file)) // written as the process started
	if err != nil {
		t.Fatal(err)
	}
	for processRunning(pid) {
		time.Sleep(20 * time.Millisecond)
	}
	if lasted := time.Since(info.ModTime()); lasted >= 30*time.Second {
		t.Errorf("process %d (%s) outlived its hook: it ran its 30 s to the end (%s)", pid, file, lasted)
	}
}

// processRunning reports whether pid is a live process (a zombie is not).
func processRunning(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: zombies count as alive
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	// a hook that runs writes it at once; a busy machine may take a while to run it
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 && data[len(data)-1] == '\n' {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}
