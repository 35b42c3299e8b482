package agent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
)

func run(t *testing.T, s Spec) Result {
	t.Helper()
	if s.MaxOutput == 0 {
		s.MaxOutput = 1 << 20
	}
	if s.Dir == "" {
		s.Dir = t.TempDir()
	}
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// running reports whether pid is a live (not zombie) process.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	st, ok := parseStat(stat)
	return ok && st.state != 'Z' && st.state != 'X'
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the agent did not record its child's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	return pid
}

func TestRunExitCodesAndOutput(t *testing.T) {
	tests := []struct {
		name     string
		command  string
		wantCode int
		wantOut  string
	}{
		{"success", "echo hello", 0, "hello\n"},
		{"failure", "echo oops >&2; exit 3", 3, "oops\n"},
		{"stdout and stderr interleaved", "echo a; echo b >&2; echo c", 0, "a\nb\nc\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, Spec{Command: tt.command})
			if res.ExitCode != tt.wantCode || string(res.Output) != tt.wantOut {
				t.Errorf("got exit %d output %q, want exit %d output %q", res.ExitCode, res.Output, tt.wantCode, tt.wantOut)
			}
		})
	}
}

func TestRunFeedsPromptOnStdinAndSetsEnv(t *testing.T) {
	prompt := strings.Repeat("line of the prompt\n", 300_000) // ~5.7 MB, far beyond a pipe buffer
	res := run(t, Spec{Command: `wc -c; echo "iter=$RALPH_ITERATION"`, Prompt: strings.NewReader(prompt),
		Env: []string{"RALPH_ITERATION=7"}})
	want := strconv.Itoa(len(prompt)) + "\niter=7\n"
	if strings.TrimLeft(string(res.Output), " ") != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
}

func TestRunKeepsOnlyTheTail(t *testing.T) {
	res := run(t, Spec{Command: `i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done`, MaxOutput: 100})
	if !res.Truncated || len(res.Output) != 100 || !bytes.HasSuffix(res.Output, []byte("line 1999\n")) {
		t.Errorf("truncated=%v len=%d tail=%q", res.Truncated, len(res.Output), res.Output)
	}
	if res.OutputBytes <= 100 {
		t.Errorf("OutputBytes = %d, want the whole stream's size", res.OutputBytes)
	}
}

func TestRunTimeoutKillsGrandchildHoldingStdout(t *testing.T) {
	dir := t.TempDir()
	var stops []string
	start := time.Now()
	res := run(t, Spec{Dir: dir, Timeout: 300 * time.Millisecond,
		Command:  `sleep 60 & echo $! > child.pid; echo "<promise>SUCCESS</promise>"; sleep 60`,
		Stopping: func(sig syscall.Signal, why string) { stops = append(stops, sig.String()+" "+why) }})
	if elapsed := time.Since(start); elapsed >= time.Minute { // the agent's sleep
		t.Errorf("Run took %v with a 300ms timeout: it waited for the agent's minute", elapsed)
	}
	if !res.TimedOut || res.Signal != syscall.SIGTERM {
		t.Errorf("TimedOut=%v Signal=%v, want a timeout ended by SIGTERM", res.TimedOut, res.Signal)
	}
	if pid := readPid(t, filepath.Join(dir, "child.pid")); running(pid) {
		t.Errorf("grandchild %d survived the timeout", pid)
	}
	if len(stops) != 1 || stops[0] != "terminated timeout" {
		t.Errorf("stopping notices = %q", stops)
	}
}

func TestRunEscalatesToSIGKILLWhenSIGTERMIsIgnored(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	res := run(t, Spec{Dir: dir, Timeout: 200 * time.Millisecond, Grace: 300 * time.Millisecond,
		Command: `trap "" TERM; sleep 60 & echo $! > child.pid; while :; do sleep 1; done`})
	elapsed := time.Since(start)
	if elapsed < 500*time.Millisecond || elapsed >= time.Minute { // the child's sleep
		t.Errorf("Run took %v, want timeout+grace (~0.5s), not the agent's minute", elapsed)
	}
	if res.Signal != syscall.SIGKILL || !res.TimedOut {
		t.Errorf("Signal=%v TimedOut=%v, want SIGKILL after a timeout", res.Signal, res.TimedOut)
	}
	if pid := readPid(t, filepath.Join(dir, "child.pid")); running(pid) {
		t.Errorf("grandchild %d survived SIGKILL", pid)
	}
}

func TestRunStopsLeftoversAfterTheAgentExits(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	res := run(t, Spec{Dir: dir, Command: `sleep 60 & echo $! > child.pid; echo done`})
	if took := time.Since(start); took >= time.Minute { // the child's sleep
		t.Errorf("Run waited %v for a background child", took)
	}
	if res.ExitCode != 0 || res.TimedOut || string(res.Output) != "done\n" {
		t.Errorf("exit=%d timedOut=%v output=%q", res.ExitCode, res.TimedOut, res.Output)
	}
	if pid := readPid(t, filepath.Join(dir, "child.pid")); running(pid) {
		t.Errorf("background child %d outlived the agent", pid)
	}
}

func TestRunReportsKillingSignalAndKeepsPartialOutput(t *testing.T) {
	res := run(t, Spec{Command: `echo "partial <promise>SUCCESS</promise>"; kill -SEGV $$`})
	if res.Signal != syscall.SIGSEGV || res.ExitCode != -1 {
		t.Errorf("Signal=%v ExitCode=%d, want SIGSEGV", res.Signal, res.ExitCode)
	}
	if !bytes.Contains(res.Output, []byte("<promise>SUCCESS</promise>")) {
		t.Errorf("partial output lost: %q", res.Output)
	}
}

func TestRunInterruptAndHurry(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	hurry := make(chan struct{})
	time.AfterFunc(200*time.Millisecond, cancel)
	time.AfterFunc(400*time.Millisecond, func() { close(hurry) })
	start := time.Now()
	res, err := Run(ctx, Spec{Dir: dir, MaxOutput: 1024, Hurry: hurry, Grace: time.Minute,
		Command: `trap "" TERM; sleep 60 & echo $! > child.pid; while :; do sleep 1; done`})
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed >= time.Minute {
		t.Errorf("hurry did not cut the one-minute grace short: %v", elapsed)
	}
	if !res.Interrupted || res.TimedOut || res.Signal != syscall.SIGKILL {
		t.Errorf("Interrupted=%v TimedOut=%v Signal=%v", res.Interrupted, res.TimedOut, res.Signal)
	}
	if pid := readPid(t, filepath.Join(dir, "child.pid")); running(pid) {
		t.Errorf("grandchild %d survived", pid)
	}
}

func TestRunDoesNotHangOnAProcessThatLeftTheGroup(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid program")
	}
	dir := t.TempDir()
	start := time.Now()
	res := run(t, Spec{Dir: dir, Command: `setsid sh -c 'echo $$ > escaped.pid; exec sleep 60' & sleep 0.2; echo done`})
	t.Cleanup(func() { syscall.Kill(readPid(t, filepath.Join(dir, "escaped.pid")), syscall.SIGKILL) })
	if elapsed := time.Since(start); elapsed >= time.Minute { // the escaped process's sleep
		t.Errorf("Run waited %v on a pipe held outside the group", elapsed)
	}
	if res.ExitCode != 0 || !strings.Contains(string(res.Output), "done") {
		t.Errorf("exit=%d output=%q", res.ExitCode, res.Output)
	}
}

func TestRunFailsToStartInAMissingDirectory(t *testing.T) {
	_, err := Run(context.Background(), Spec{Command: "true", Dir: "/nonexistent/dir", MaxOutput: 10})
	if err == nil {
		t.Fatal("Run in a missing directory succeeded")
	}
}

func TestParseStat(t *testing.T) {
	st, ok := parseStat([]byte("42 (my (odd) name) S 1 4242 4241 0 -1"))
	if !ok || st.state != 'S' || st.pgrp != 4242 || st.session != 4241 {
		t.Errorf("parseStat = %+v %v", st, ok)
	}
	if _, ok := parseStat([]byte("garbage")); ok {
		t.Error("parseStat accepted garbage")
	}
}

func TestRunStopsDescendantsInOtherProcessGroups(t *testing.T) {
	dir := t.TempDir()
	// timeout(1) moves itself and its command to a process group of their own
	res := run(t, Spec{Dir: dir, Timeout: 300 * time.Millisecond,
		Command: `timeout 60 sleep 60 & echo $! > child.pid; wait`})
	if !res.TimedOut {
		t.Errorf("TimedOut = false")
	}
	if pid := readPid(t, filepath.Join(dir, "child.pid")); running(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("a descendant in its own process group (%d) survived", pid)
	}
}

// stalledWriter is a --verbose reader that never reads: a paused terminal.
type stalledWriter struct{ block chan struct{} }

func (s stalledWriter) Write(p []byte) (int, error) {
	<-s.block
	return len(p), nil
}

// The reader stalls until the test ends, so a run it held would never end: the bound only
// tells that apart from a run on a busy machine, and is generous for that.
func TestRunIsNotHeldUpByAStalledLiveReader(t *testing.T) {
	stalled := stalledWriter{block: make(chan struct{})}
	defer close(stalled.block)
	done := make(chan Result, 1)
	go func() {
		res, err := Run(context.Background(), Spec{Command: `head -c 8000000 /dev/zero; echo end`, Live: stalled, MaxOutput: 1 << 20, Dir: t.TempDir()})
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- res
	}()
	var res Result
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("a stalled live reader held the iteration")
	}
	if res.OutputBytes != 8000004 || !bytes.HasSuffix(res.Output, []byte("end\n")) {
		t.Errorf("capture incomplete: %d bytes", res.OutputBytes)
	}
}

// The live copy (--verbose) is redacted; the output the loop reads is not.
func TestLiveOutputIsRedacted(t *testing.T) {
	key := "ghp_" + strings.Repeat("a1B2", 9)
	var live testio.Buffer
	res := run(t, Spec{Command: "printf 'token %s\\nno newline at the end' " + key, Live: &live})
	if got, want := live.String(), "token [REDACTED:github-token]\nno newline at the end"; got != want {
		t.Errorf("live = %q, want %q", got, want)
	}
	if !bytes.Contains(res.Output, []byte(key)) {
		t.Errorf("the captured output lost the key the loop may need to read: %q", res.Output)
	}
}
