//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/internal/testio"
)

// TestWatchInTmux drives `git ralph watch` for real in tmux: it shows the iteration and
// the agent's live text; p pauses (status says so), r resumes, i injects, c takes a
// checkpoint, x asks before it cancels, q quits while the loop goes on; NO_COLOR leaves
// no escape codes on the screen, and without it (or with it empty) the key bar is styled.
func TestWatchInTmux(t *testing.T) {
	needTmux(t)
	scratchRepo(t)
	if err := os.WriteFile(".gitignore", []byte("go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := installSelf(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Unsetenv("TMUX")
	t.Setenv("TERM", "xterm-256color")

	loop := exec.Command("git-ralph", "loop", "--max", "2", "--idle-threshold", "0", "--agent-cmd",
		`echo "hello from iteration $RALPH_ITERATION"; while [ ! -e go ]; do sleep 0.1; done`)
	loop.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- loop.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-loop.Process.Pid, syscall.SIGKILL)
		<-ended
	})
	waitFor(t, "the loop to run", func() bool { return strings.Contains(ralph(t, "status"), "running (pid") })

	tm := startTmux(t, "NO_COLOR=1 git-ralph watch")
	tm.waitScreen("the iteration and the live text", "[RUNNING] main · ", " · build", "iteration 1/2", "hello from iteration 1", "checkpoints: none")
	if raw := tm.capture("-e"); strings.Contains(raw, "\x1b") {
		t.Errorf("NO_COLOR=1: escape codes on the screen:\n%q", raw)
	}

	tm.keys("p")
	tm.waitScreen("the pause's answer", "pauses once its current iteration is recorded")
	if st := ralph(t, "status"); !strings.Contains(st, "pausing once its current iteration is recorded") {
		t.Errorf("after p, status does not say pausing:\n%s", st)
	}
	tm.keys("r")
	// ") goes on", not "goes on": the pause's answer on the screen ends "'git ralph resume' goes on"
	tm.waitScreen("the resume's answer", ") goes on")
	if st := ralph(t, "status"); strings.Contains(st, "paus") {
		t.Errorf("after r, status still says paused:\n%s", st)
	}
	tm.keys("i")
	tm.waitScreen("the inject question", "inject (Enter queues it")
	tm.keys("-l", "use the v2 API")
	tm.keys("Enter")
	tm.waitScreen("the inject's answer", "queued 14 bytes for the next iteration's prompt")
	if queued := injectedTexts(t); !strings.Contains(queued, "use the v2 API") {
		t.Errorf("after i, the text is not queued for the next prompt; .ralph/inject holds %q", queued)
	}
	tm.keys("c")
	tm.waitScreen("the checkpoint's answer", "(kept at refs/ralph/checkpoints/")
	tm.waitScreen("the checkpoint in the header", "checkpoints: 1, the last ")
	if list := ralph(t, "checkpoints"); !strings.HasPrefix(list, "LABEL") {
		t.Errorf("after c, no checkpoint listed:\n%s", list)
	}
	tm.keys("x")
	tm.waitScreen("the cancel question", "cancel the loop after its current iteration? y/n")
	tm.keys("n")
	tm.waitScreen("the cancel declined", "not cancelled")
	tm.keys("q")
	waitFor(t, "the view to quit", func() bool { return exec.Command("tmux", "-S", tm.socket, "has-session").Run() != nil })
	if st := ralph(t, "status"); !strings.Contains(st, "running (pid") {
		t.Fatalf("after q, the loop is gone:\n%s", st)
	}

	// an empty NO_COLOR is as if it were unset (https://no-color.org): in colour
	tm = startTmux(t, "NO_COLOR= git-ralph watch")
	tm.waitScreen("the view with NO_COLOR empty", "hello from iteration 1")
	if raw := tm.capture("-e"); !strings.Contains(raw, "\x1b[") {
		t.Errorf("with NO_COLOR empty, no style on the screen:\n%q", raw)
	}
	tm.keys("q")
	waitFor(t, "the view to quit", func() bool { return exec.Command("tmux", "-S", tm.socket, "has-session").Run() != nil })

	// in colour: the key bar is styled, and x, y cancels the loop after its iteration
	tm = startTmux(t, "git-ralph watch")
	tm.waitScreen("the view in colour", "hello from iteration 1")
	if raw := tm.capture("-e"); !strings.Contains(raw, "\x1b[") {
		t.Errorf("without NO_COLOR, no style on the screen:\n%q", raw)
	}
	tm.keys("x")
	tm.waitScreen("the cancel question", "y/n")
	tm.keys("y")
	tm.waitScreen("the cancel's answer", "to stop after its current iteration")
	if err := os.WriteFile("go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		ended <- err
		if code := loop.ProcessState.ExitCode(); code != 130 {
			t.Errorf("the cancelled loop exited %d, want 130", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the loop did not stop after x, y")
	}
	tm.waitScreen("the view surviving the loop's end", "not running")
	if screen := tm.capture(); strings.Contains(screen, "to stop after its current iteration") {
		t.Errorf("the cancel's answer stays after the loop ended:\n%s", screen)
	}
}

// TestWatchIterationsInTmux: at 80×24 under NO_COLOR, the view lists the run's
// iterations like a CI run's steps (✓ passed, ✗ failed validation, ⏳ running); tab and
// Enter show an iteration's diff, o its output, Esc goes back, ? lists every key, ↑
// scrolls the output back; in colour the failed validation is red.
func TestWatchIterationsInTmux(t *testing.T) {
	needTmux(t)
	scratchRepo(t)
	if err := os.WriteFile(".gitignore", []byte("go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := installSelf(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Unsetenv("TMUX")
	t.Setenv("TERM", "xterm-256color")
	agent := `echo "hello from iteration $RALPH_ITERATION"; echo "line $RALPH_ITERATION" >> file.txt; ` +
		`for i in $(seq 1 40); do echo "working $i"; done; ` +
		`if [ "$RALPH_ITERATION" -ge 3 ]; then while [ ! -e go ]; do sleep 0.1; done; fi`
	loop := exec.Command("git-ralph", "loop", "--max", "3", "--idle-threshold", "0",
		"--validate", `test "$(wc -l < file.txt)" -ne 2`, "--agent-cmd", agent)
	loop.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- loop.Wait() }()
	t.Cleanup(func() {
		os.WriteFile("go", nil, 0o644)
		select {
		case <-ended:
		case <-time.After(20 * time.Second):
			syscall.Kill(-loop.Process.Pid, syscall.SIGKILL)
			<-ended
		}
	})
	waitFor(t, "the third iteration to run", func() bool { return strings.Contains(ralph(t, "status"), "3/3 in this run (in progress)") })

	tm := startTmuxSized(t, "NO_COLOR=1 git-ralph watch", 80, 24)
	tm.waitScreen("the iterations", "[RUNNING] main", "iteration 3/3", "iterations of this run (3)",
		"✓  1     success     passed", "✗  2     success     failed: exit code 1", "⏳ 3     running", "working 40",
		"p pause  i inject  c checkpoint  x cancel  q quit  ? all keys")
	if raw := tm.capture("-e"); strings.Contains(raw, "\x1b") {
		t.Errorf("NO_COLOR=1: escape codes on the screen:\n%q", raw)
	}
	tm.shot("no-color", 80, 24)
	tm.keys("Tab")
	tm.waitScreen("the list's focus", "↑/↓ select, enter shows the diff")
	tm.keys("k")
	tm.keys("Enter")
	tm.waitScreen("iteration 2's diff", "iteration 2 · diff", "+line 2", "o: its output, esc: back")
	tm.keys("o")
	tm.waitScreen("iteration 2's output", "iteration 2 · output", "hello from iteration 2")
	tm.keys("Escape")
	tm.waitScreen("the list again", "iterations of this run (3)")
	time.Sleep(100 * time.Millisecond) // Escape then a key at once would read as alt+key
	tm.keys("?")
	tm.waitScreen("every key", "keys (? or Esc closes)", "next/previous match", "bottom, follow")
	tm.keys("?")
	tm.waitScreen("the list again", "iterations of this run (3)")
	tm.keys("Tab")
	tm.keys("Up")
	tm.waitScreen("the output scrolled back", "(G follows)")
	tm.keys("q")
	waitFor(t, "the view to quit", func() bool { return exec.Command("tmux", "-S", tm.socket, "has-session").Run() != nil })
	for _, line := range strings.Split(tm.lastScreen, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("a line of %d characters on an 80-column terminal: %q", n, line)
		}
	}

	tm = startTmux(t, "git-ralph watch")
	tm.waitScreen("the view in colour", "iterations of this run (3)", "working 40")
	if raw := tm.capture("-e"); !strings.Contains(raw, "\x1b[31mfailed: exit code 1") {
		t.Errorf("the failed validation is not red:\n%q", raw)
	}
	tm.keys("Tab", "k", "Enter")
	tm.waitScreen("iteration 2's diff in colour", "iteration 2 · diff", "+line 2")
	if raw := tm.capture("-e"); !strings.Contains(raw, "\x1b[32m+line 2") {
		t.Errorf("the diff's added line is not green:\n%q", raw)
	}
}

// installSelf links this test binary as bin/git-ralph: TestMain runs it as git-ralph
// under that name (testscript's way), and os.Executable names it so too.
func installSelf(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	dst := filepath.Join(bin, "git-ralph")
	if err := os.Link(self, dst); err != nil {
		in, err := os.Open(self)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
	return bin
}

// ralph runs git-ralph (from PATH) and returns its output.
func ralph(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "git-ralph", args...).CombinedOutput()
	return string(out)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// tmuxView is one tmux server, on a socket of the test's, running one command.
type tmuxView struct {
	t          *testing.T
	socket     string
	lastScreen string // the screen waitScreen saw last
}

func startTmux(t *testing.T, command string) *tmuxView {
	t.Helper()
	return startTmuxSized(t, command, 100, 30)
}

// startTmuxSized runs command in a terminal of width×height.
func startTmuxSized(t *testing.T, command string, width, height int) *tmuxView {
	t.Helper()
	tm := &tmuxView{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	if out, err := exec.Command("tmux", "-S", tm.socket, "-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), command).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *tmuxView) capture(flags ...string) string {
	out, _ := exec.Command("tmux", append([]string{"-S", tm.socket, "capture-pane", "-p"}, flags...)...).Output()
	return string(out)
}

func (tm *tmuxView) keys(keys ...string) {
	if out, err := exec.Command("tmux", append([]string{"-S", tm.socket, "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		tm.t.Fatalf("tmux send-keys %v: %v\n%s", keys, err, out)
	}
}

// waitScreen waits until the screen shows every one of texts.
func (tm *tmuxView) waitScreen(what string, texts ...string) {
	tm.t.Helper()
	var screen string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		screen = tm.capture()
		tm.lastScreen = screen
		all := true
		for _, s := range texts {
			all = all && strings.Contains(screen, s)
		}
		if all {
			return
		}
	}
	tm.t.Fatalf("the screen never showed %s (%q):\n%s", what, texts, screen)
}

// TestWatchPicksALoopInTmux: with no loop running in the main work tree, `git ralph watch`
// lists the repository's loops (both worktree loops here); j/k move, Enter watches the
// one under the cursor as --loop NAME would, Esc goes back to the list (the cursor where
// it was), q quits from either.
func TestWatchPicksALoopInTmux(t *testing.T) {
	needTmux(t)
	scratchRepo(t)
	bin := installSelf(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Unsetenv("TMUX")
	t.Setenv("TERM", "xterm-256color")
	stop := filepath.Join(t.TempDir(), "go")

	for _, name := range []string{"alpha", "beta"} {
		loop := exec.Command("git-ralph", "loop", "--worktree", name, "--max", "1", "--idle-threshold", "0", "--agent-cmd",
			`echo "hello from `+name+` iteration $RALPH_ITERATION"; while [ ! -e `+stop+` ]; do sleep 0.1; done`)
		loop.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := loop.Start(); err != nil {
			t.Fatal(err)
		}
		ended := make(chan error, 1)
		go func() { ended <- loop.Wait() }()
		t.Cleanup(func() {
			os.WriteFile(stop, nil, 0o644)
			select {
			case <-ended:
			case <-time.After(20 * time.Second):
				syscall.Kill(-loop.Process.Pid, syscall.SIGKILL)
				<-ended
			}
		})
	}
	waitFor(t, "both loops to run", func() bool {
		return strings.Count(ralph(t, "runs"), " running") == 2
	})

	tm := startTmux(t, "NO_COLOR=1 git-ralph watch")
	tm.waitScreen("the list of loops", "the repository's loops:", "> main ", "  alpha ", "  beta ", "enter watch this loop")
	tm.keys("j")
	tm.waitScreen("the cursor on alpha", "> alpha ")
	tm.keys("j", "k", "Down")
	tm.waitScreen("the cursor on beta", "> beta ")
	tm.keys("Enter")
	tm.waitScreen("beta's view", "[RUNNING] beta · ralph/beta", "iteration 1/1", "hello from beta iteration 1", "esc all loops")
	if screen := tm.capture(); strings.Contains(screen, "alpha") {
		t.Errorf("watching beta, the screen shows alpha:\n%s", screen)
	}
	tm.keys("Escape")
	tm.waitScreen("the list again, the cursor on beta", "the repository's loops:", "> beta ")
	time.Sleep(100 * time.Millisecond) // Escape then a key at once would read as alt+key
	tm.keys("k")
	tm.waitScreen("the cursor on alpha", "> alpha ")
	tm.keys("Enter")
	tm.waitScreen("alpha's view", "[RUNNING] alpha · ralph/alpha", "hello from alpha iteration 1")
	tm.keys("q")
	waitFor(t, "the view to quit", func() bool { return exec.Command("tmux", "-S", tm.socket, "has-session").Run() != nil })

	tm = startTmux(t, "NO_COLOR=1 git-ralph watch")
	tm.waitScreen("the list of loops", "> main ")
	tm.keys("q")
	waitFor(t, "the list to quit", func() bool { return exec.Command("tmux", "-S", tm.socket, "has-session").Run() != nil })
}

// injectedTexts is what `inject` queued for the next iteration's prompt, read where the
// loop reads it, so the test checks the key's effect and not only the view's answer.
func injectedTexts(t *testing.T) string {
	t.Helper()
	list, err := history.Injections(".")
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, in := range list {
		all.WriteString(in.Text)
	}
	return all.String()
}

// TestWatchEndsWithItsTerminal: a `git ralph watch` whose terminal goes ends, the loop
// going on: sent SIGHUP (a terminal closing hangs up its session; SIGTERM and SIGINT from
// outside too), its tmux server killed,
// and its terminal closed without any signal (a view that is not in the terminal's
// session reads EOF and nothing tells it more), where bubbletea alone ran on, redrawing for
// no one.
func TestWatchEndsWithItsTerminal(t *testing.T) {
	needTmux(t)
	scratchRepo(t)
	bin := installSelf(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Unsetenv("TMUX")
	t.Setenv("TERM", "xterm-256color")
	loop := exec.Command("git-ralph", "loop", "--max", "1", "--idle-threshold", "0", "--agent-cmd",
		`echo "hello from iteration $RALPH_ITERATION"; while [ ! -e go ]; do sleep 0.1; done`)
	loop.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-loop.Process.Pid, syscall.SIGKILL)
		loop.Wait()
	})
	waitFor(t, "the loop to run", func() bool { return strings.Contains(ralph(t, "status"), "running (pid") })

	// watchIn starts the view in a tmux server of its own and returns the view's pid
	watchIn := func() (*tmuxView, int) {
		tm := startTmux(t, "exec git-ralph watch")
		tm.waitScreen("the view", "hello from iteration 1")
		out, err := exec.Command("tmux", "-S", tm.socket, "display", "-p", "#{pane_pid}").Output()
		pid, perr := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil || perr != nil {
			t.Fatalf("the view's pid: %v %v %q", err, perr, out)
		}
		return tm, pid
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			_, pid := watchIn()
			syscall.Kill(pid, sig)
			waitGone(t, pid)
		})
	}
	t.Run("tmux server killed", func(t *testing.T) {
		tm, pid := watchIn()
		out, _ := exec.Command("tmux", "-S", tm.socket, "display", "-p", "#{pid}").Output()
		server, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatalf("the tmux server's pid: %q", out)
		}
		syscall.Kill(server, syscall.SIGKILL)
		waitGone(t, pid)
	})
	t.Run("terminal closed without a signal", func(t *testing.T) {
		pty, tty := testio.OpenPTY(t)
		setSize(t, tty, 30, 100)
		watch := exec.Command("git-ralph", "watch")
		watch.Stdin, watch.Stdout, watch.Stderr = tty, tty, tty
		if err := watch.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- watch.Wait() }()
		t.Cleanup(func() { watch.Process.Kill() })
		select {
		case s := <-readUntil(pty, "hello from iteration 1"):
			if !strings.Contains(s, "hello from iteration 1") {
				t.Fatalf("the view never showed the loop: %q", s)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the view never showed the loop")
		}
		tty.Close()
		pty.Close()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Fatal("the view runs on after its terminal closed")
		}
	})
	if st := ralph(t, "status"); !strings.Contains(st, "running (pid") {
		t.Errorf("the loop did not outlive its views:\n%s", st)
	}
}

// waitGone waits until process pid has ended (reaped or a zombie: the tmux server that
// started it is gone).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("the view (pid %d) to end", pid), func() bool {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		// pid (comm) STATE …: Z is a zombie, ended but not reaped
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
	})
}

// setSize gives the terminal tty rows and columns, as a terminal emulator does.
func setSize(t *testing.T, tty *os.File, rows, cols uint16) {
	t.Helper()
	ws := struct{ row, col, x, y uint16 }{rows, cols, 0, 0}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, tty.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		t.Fatalf("sizing the terminal: %v", e)
	}
}

// TestWatchLimitWaitInTmux: while the loop waits for a usage limit to reset, the
// header's badge says WAITING and the time left, counting down; the first iteration's
// output is rendered for reading though no record names its agent yet.
func TestWatchLimitWaitInTmux(t *testing.T) {
	needTmux(t)
	scratchRepo(t)
	bin := installSelf(t)
	// a claude of the test's: its first run hits a usage limit that resets in 150 s
	claude := `#!/bin/sh
echo '{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5","tools":["Bash"]}'
reset=$(( $(date +%s) + 150 ))
echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":'$reset',"rateLimitType":"five_hour"},"session_id":"s1"}'
echo '{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You'"'"'ve hit your limit","session_id":"s1","total_cost_usd":0}'
`
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(claude), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("RALPH_BACKOFF_BASE", "10ms")
	t.Setenv("RALPH_BACKOFF_MAX", "100ms") // the margin added to the stated reset
	os.Unsetenv("TMUX")
	t.Setenv("TERM", "xterm-256color")
	loop := exec.Command("git-ralph", "loop", "--agent", "claude", "--max", "1")
	var stderr strings.Builder
	loop.Stderr = &stderr
	loop.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-loop.Process.Pid, syscall.SIGKILL)
		loop.Wait()
	})
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(ralph(t, "status"), "waiting until"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the loop never waited for the limit; it says:\n%s\nstatus:\n%s", stderr.String(), ralph(t, "status"))
		}
	}

	tm := startTmux(t, "NO_COLOR=1 git-ralph watch")
	tm.waitScreen("the wait in the header", "[WAITING 2m", "] main · ")
	first := waitingLeft(t, tm.lastScreen)
	// the first iteration has no record yet to name its agent: the run's state does
	tm.waitScreen("claude's output rendered", "• model claude-sonnet-4-5")
	if screen := tm.capture(); strings.Contains(screen, `{"type":`) {
		t.Errorf("the live output is claude's raw JSON, not rendered:\n%s", screen)
	}
	time.Sleep(2500 * time.Millisecond)
	tm.waitScreen("the wait in the header", "[WAITING ")
	if then := waitingLeft(t, tm.lastScreen); then >= first || then < first-30*time.Second {
		t.Errorf("the time left went from %s to %s in 2.5 s, want it counting down:\n%s", first, then, tm.lastScreen)
	}
	tm.keys("q")
	waitFor(t, "the view to quit", func() bool { return exec.Command("tmux", "-S", tm.socket, "has-session").Run() != nil })

	tm = startTmuxSized(t, "git-ralph watch", 100, 12)
	tm.waitScreen("the wait in colour", "WAITING ")
	if raw := tm.capture("-e"); !strings.Contains(raw, "\x1b[46m") {
		t.Errorf("the WAITING badge is not cyan:\n%q", raw)
	}
	tm.shot("waiting", 100, 12)
}

// waitingLeft reads the time left from the screen's [WAITING 2m05s] badge.
func waitingLeft(t *testing.T, screen string) time.Duration {
	t.Helper()
	_, rest, _ := strings.Cut(screen, "[WAITING ")
	left, _, _ := strings.Cut(rest, "]")
	d, err := time.ParseDuration(left)
	if err != nil {
		t.Fatalf("the badge's time left %q: %v\n%s", left, err, screen)
	}
	return d
}

// TestWatchFleetDrillInTmux: the list of loops counts and marks the loop whose merge
// needs review; Enter opens a running loop, tab and Enter one of its iterations' diff,
// Esc goes back to the loop and again to the list, the cursor on the same loop.
func TestWatchFleetDrillInTmux(t *testing.T) {
	needTmux(t)
	scratchRepo(t)
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(v, "T")
	}
	for _, v := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(v, "t@example.com")
	}
	bin := installSelf(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Unsetenv("TMUX")
	t.Setenv("TERM", "xterm-256color")
	// clash's merge conflicts with the user's commit: it needs review
	ralph(t, "loop", "--worktree", "clash", "--max", "1", "--idle-threshold", "0", "--agent-cmd", "echo loop > shared.txt; git add shared.txt; git commit -qm 'loop side'")
	if out, err := exec.Command("sh", "-c", "echo user > shared.txt && git add shared.txt && git commit -qm 'user side'").CombinedOutput(); err != nil {
		t.Fatalf("the user's commit: %v\n%s", err, out)
	}
	ralph(t, "merge", "clash")
	// docs runs: its first iteration writes notes.txt, its second waits
	stop := filepath.Join(t.TempDir(), "go")
	loop := exec.Command("git-ralph", "loop", "--worktree", "docs", "--max", "2", "--idle-threshold", "0", "--agent-cmd",
		`echo "notes of iteration $RALPH_ITERATION" >> notes.txt; echo "writing the notes"; `+
			`if [ "$RALPH_ITERATION" -ge 2 ]; then while [ ! -e `+stop+` ]; do sleep 0.1; done; fi`)
	loop.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- loop.Wait() }()
	t.Cleanup(func() {
		os.WriteFile(stop, nil, 0o644)
		select {
		case <-ended:
		case <-time.After(20 * time.Second):
			syscall.Kill(-loop.Process.Pid, syscall.SIGKILL)
			<-ended
		}
	})
	waitFor(t, "clash to need review and docs to run its second iteration", func() bool {
		return strings.Contains(ralph(t, "status", "--loop", "clash"), "review") &&
			strings.Contains(ralph(t, "status", "--loop", "docs"), "2/2 in this run (in progress)")
	})
	tm := startTmux(t, "NO_COLOR=1 git-ralph watch")
	tm.waitScreen("the list of loops", "the repository's loops:", "> main ", "  clash ", "  docs ", "needs-review")
	tm.keys("j")
	tm.waitScreen("the cursor on clash", "> clash ")
	tm.keys("j")
	tm.waitScreen("the cursor on docs", "> docs ")
	tm.keys("Enter")
	tm.waitScreen("docs's view", "[RUNNING] docs · ralph/docs", "iteration 2/2", "iterations of this run (2)", "✓  1 ", "writing the notes")
	tm.keys("Tab", "k", "Enter")
	tm.waitScreen("iteration 1's diff", "iteration 1 · diff", "+notes of iteration 1")
	tm.keys("Escape")
	tm.waitScreen("docs's view again", "[RUNNING] docs · ralph/docs", "iterations of this run (2)")
	if screen := tm.capture(); strings.Contains(screen, "· diff") {
		t.Errorf("Esc left the diff on the screen:\n%s", screen)
	}
	time.Sleep(100 * time.Millisecond) // Escape then Escape at once would read as alt+Escape
	tm.keys("Escape")
	tm.waitScreen("the list again, the cursor on docs", "the repository's loops:", "> docs ", "  clash ")
	tm.keys("q")
	waitFor(t, "the view to quit", func() bool { return exec.Command("tmux", "-S", tm.socket, "has-session").Run() != nil })

	tm = startTmuxSized(t, "git-ralph watch", 100, 12)
	tm.waitScreen("the list in colour", "the repository's loops:", "needs-review")
	for _, line := range strings.Split(tm.capture("-e"), "\n") {
		if strings.Contains(line, "clash") && !strings.Contains(line, "35m") {
			t.Errorf("the loop needing review is not drawn magenta: %q", line)
		}
	}
	tm.shot("fleet", 100, 12)
}

// TestWatchWithClaudeInTmux: a claude loop with a budget, as the README's picture shows
// it: the header names the agent and its model, the spend is a bar against max_cost, the
// iterations list their cost, and the agent's text is rendered for reading; Enter on
// an iteration shows its diff.
func TestWatchWithClaudeInTmux(t *testing.T) {
	needTmux(t)
	scratchRepo(t)
	home := t.TempDir() // the user's spend is kept there, out of the work tree
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	bin := installSelf(t)
	// a claude of the test's: it edits greet.go, says so in claude's stream-json and costs
	// $0.30, $0.45, …; its third iteration waits for the test's word
	claude := `#!/bin/sh
i=$RALPH_ITERATION
printf 'package greet\n\n// Greet says hello (revision %s).\nfunc Greet() string { return "hello" }\n' $i > greet.go
echo $i > revision
echo '{"type":"system","subtype":"init","model":"claude-sonnet-4-5","apiKeySource":"none","session_id":"s"}'
echo '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Reading greet.go and its test to see what the greeting should say."}]},"session_id":"s"}'
echo '{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t'$i'","name":"Edit","input":{"file_path":"greet.go"}}]},"session_id":"s"}'
echo '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Updated Greet; running go test ./... next (iteration '$i')."}]},"session_id":"s"}'
if [ "$i" -ge 3 ]; then while [ ! -e .git/go ]; do sleep 0.1; done; fi
echo '{"type":"result","subtype":"success","is_error":false,"result":"done with '$i'","total_cost_usd":0.'$((15 + 15 * i))',"usage":{"input_tokens":1000,"output_tokens":500},"session_id":"s"}'
`
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(claude), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Unsetenv("TMUX")
	t.Setenv("TERM", "xterm-256color")
	loop := exec.Command("git-ralph", "loop", "--agent", "claude", "--max", "5", "--max-cost", "3", "--idle-threshold", "0",
		"--validate", `test "$(cat revision)" -ne 2 || { echo "--- FAIL: TestGreet"; exit 1; }`)
	loop.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-loop.Process.Pid, syscall.SIGKILL)
		loop.Wait()
	})
	waitFor(t, "the third iteration to run", func() bool { return strings.Contains(ralph(t, "status"), "3/5 in this run (in progress)") })

	tm := startTmux(t, "git-ralph watch")
	tm.waitScreen("the loop with its agent and budget", "main · master · build", "claude", "sonnet",
		"$0.75 of $3.00", "iterations of this run (3)", "$0.30", "$0.45", "failed: exit code 1", "running go test ./...")
	tm.shot("loop", 100, 30)
	tm.keys("Tab", "k", "Enter")
	tm.waitScreen("iteration 2's diff", "iteration 2 · diff", "+// Greet says hello (revision 2).", "-// Greet says hello (revision 1).")
	tm.shot("diff", 100, 30)
}

// needTmux skips a test of the view in tmux where tmux is not installed, and fails it on
// CI, where .ci/run installs it.
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is missing on CI: .ci/run installs it")
		}
		t.Skip("tmux is not installed: the terminal view is tested in tmux (apt-get install tmux)")
	}
}
