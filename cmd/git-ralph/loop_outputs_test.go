package main

import (
	"context"
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

// close may be called twice, and an event after it is dropped: neither panics.
func TestEventHooksCloseTwiceAndReportAfterClose(t *testing.T) {
	h := newEventHooks(config.Hooks{OnComplete: config.Value[string]{V: "true"}}, t.TempDir(), newEventEncoder("/r"), func(r hookResult) {
		t.Errorf("hook failed: %v", r.err)
	})
	h.Report(loop.RunFinished{Result: loop.Result{Status: loop.StatusSuccess}})
	h.close(nil)
	h.close(nil)
	h.Report(loop.RunFinished{Result: loop.Result{Status: loop.StatusSuccess}})
}

// A hook that exits 0 but leaves a process holding its output is not a failure, and
// what it left is killed; a failing hook's leftovers are killed too.
func TestHookLeftoversAreKilled(t *testing.T) {
	dir := t.TempDir()
	ok := runHook(context.Background(), hookCall{name: "on_complete", command: "sleep 30 & echo $! > ok.pid"}, dir, 10*time.Second)
	if ok.err != nil {
		t.Errorf("hook that exited 0 reported as failed: %v", ok.err)
	}
	bad := runHook(context.Background(), hookCall{name: "on_failure", command: "sleep 30 >/dev/null 2>&1 & echo $! > bad.pid; exit 3"}, dir, 10*time.Second)
	if bad.err == nil || !strings.Contains(bad.err.Error(), "exit status 3") {
		t.Errorf("failing hook: %v", bad.err)
	}
	for _, f := range []string{"ok.pid", "bad.pid"} {
		waitGone(t, dir, f)
	}
}

// A hook's last line of output with control characters is quoted on stderr.
func TestHookFailureWarningHasNoControlCharacters(t *testing.T) {
	var out strings.Builder
	o := &loopOutputs{}
	o.hookFailed(&out, hookResult{hookCall: hookCall{name: "on_iteration", command: "x\ny", event: "iteration_finished"},
		err: errString("exit status 1"), output: "first\n\x1b[31mred\r"})
	if strings.ContainsAny(out.String(), "\r\x1b") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("control characters in %q", out.String())
	}
}

// waitGone fails the test unless the process whose pid is in dir/file ends within 2 s.
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
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !processRunning(pid) {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d (%s) outlived its hook", pid, file)
}

type errString string

func (e errString) Error() string { return string(e) }

// A second Ctrl+C stops the wait for hooks: the running one is killed, the queued ones
// are dropped, and close returns at once.
func TestHurryStopsWaitingForHooks(t *testing.T) {
	dir := t.TempDir()
	var failures []hookResult
	h := newEventHooks(config.Hooks{OnIteration: config.Value[string]{V: "echo $$ > hook.pid; exec sleep 30"}},
		dir, newEventEncoder(dir), func(r hookResult) { failures = append(failures, r) })
	for i := 1; i <= 3; i++ {
		h.Report(loop.IterationFinished{Iteration: i, Outcome: loop.OutcomeSuccess})
	}
	waitFile(t, filepath.Join(dir, "hook.pid"))
	hurry := make(chan struct{})
	close(hurry)
	start := time.Now()
	h.close(hurry)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("close took %s after a second Ctrl+C", took)
	}
	if len(failures) != 1 || !strings.Contains(failures[0].err.Error(), "stop at once") {
		t.Errorf("want the running hook reported as killed and the queued ones dropped, got %+v", failures)
	}
	waitGone(t, dir, "hook.pid")
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 && data[len(data)-1] == '\n' {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}
