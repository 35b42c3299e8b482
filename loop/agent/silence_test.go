package agent

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// An agent that said something and then went quiet is stopped once the quiet lasts
// OutputTimeout, with its whole group: SIGTERM, the grace period, SIGKILL.
func TestRunStopsASilentAgentAndItsChildren(t *testing.T) {
	dir := t.TempDir()
	var stops []string
	start := time.Now()
	res := run(t, Spec{Dir: dir, OutputTimeout: 300 * time.Millisecond, Grace: 300 * time.Millisecond,
		Command:  `trap "" TERM; sleep 60 & echo $! > child.pid; echo working; while :; do sleep 1; done`,
		Stopping: func(sig syscall.Signal, why string) { stops = append(stops, sig.String()+" "+why) }})
	elapsed := time.Since(start)
	if elapsed < 500*time.Millisecond || elapsed >= time.Minute { // the child's sleep
		t.Errorf("Run took %v, want the silence and the grace (~0.6s), not the agent's minute", elapsed)
	}
	if !res.Silent || !res.TimedOut || res.Signal != syscall.SIGKILL {
		t.Errorf("Silent=%v TimedOut=%v Signal=%v, want a silent agent ended by SIGKILL", res.Silent, res.TimedOut, res.Signal)
	}
	if pid := readPid(t, filepath.Join(dir, "child.pid")); running(pid) {
		t.Errorf("child %d survived the silent-agent watchdog", pid)
	}
	want := []string{"terminated " + WhySilent, "killed " + WhySilent}
	if len(stops) != 2 || stops[0] != want[0] || stops[1] != want[1] {
		t.Errorf("stopping notices = %q, want %q", stops, want)
	}
	if string(res.Output) != "working\n" {
		t.Errorf("output = %q, want what it said before going quiet", res.Output)
	}
}

// An agent that prints steadily, on stdout or stderr, runs as long as it needs: only
// silence stops it, not the length of the run.
func TestRunLetsASteadilyPrintingAgentRunLong(t *testing.T) {
	res := run(t, Spec{OutputTimeout: 300 * time.Millisecond,
		Command: `i=0; while [ $i -lt 12 ]; do echo out; sleep 0.1; echo err >&2; sleep 0.1; i=$((i+1)); done`})
	if res.Duration < 2*time.Second {
		t.Fatalf("the agent ran %v, want ~2.4s, far longer than the output timeout", res.Duration)
	}
	if res.Silent || res.TimedOut || res.ExitCode != 0 || res.Signal != 0 {
		t.Errorf("Silent=%v TimedOut=%v ExitCode=%d Signal=%v, want a normal exit", res.Silent, res.TimedOut, res.ExitCode, res.Signal)
	}
}

// Without an output timeout a quiet agent is left alone.
func TestRunWithoutOutputTimeoutLetsAQuietAgentFinish(t *testing.T) {
	res := run(t, Spec{Command: `sleep 0.5; echo done`})
	if res.Silent || res.TimedOut || res.ExitCode != 0 {
		t.Errorf("Silent=%v TimedOut=%v ExitCode=%d, want a normal exit", res.Silent, res.TimedOut, res.ExitCode)
	}
}
