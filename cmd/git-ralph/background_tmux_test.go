//go:build linux

package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestBackgroundAsksThenWatchInTmux: `loop --background` on a terminal asks for the
// approval of the repository's commands there, before it detaches (the detached loop has
// no terminal to ask on), then returns with the loop running; `watch --loop main` opens
// that loop, whose agent's text it shows, and the loop ends on its own.
func TestBackgroundAsksThenWatchInTmux(t *testing.T) {
	needTmux(t)
	scratchRepo(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if err := os.MkdirAll(".ralph", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(".ralph/config.toml", []byte("validate = \"touch validated\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := installSelf(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Unsetenv("TMUX")
	t.Setenv("TERM", "xterm-256color")

	start := startTmux(t, `git-ralph loop -b --max 1 --idle-threshold 0 --agent-cmd 'echo hello from the background; while [ ! -e go ]; do sleep 0.1; done'; echo "exit $?"; sleep 60`)
	start.waitScreen("the approval asked on the terminal", "Trust them and run?")
	start.keys("y", "Enter")
	start.waitScreen("the loop started", "runs in the background (pid", "exit 0")
	pid := backgroundPID(t, start.capture())
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if st := ralph(t, "status"); !strings.Contains(st, "running (pid "+strconv.Itoa(pid)) {
		t.Fatalf("after the start, status does not show the background loop:\n%s", st)
	}

	watch := startTmux(t, "NO_COLOR=1 git-ralph watch --loop main")
	watch.waitScreen("the background loop in the view", "[RUNNING] main", "hello from the background")
	if err := os.WriteFile("go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	watch.waitScreen("the view after the loop's end", "not running")
	if _, err := os.Stat("validated"); err != nil {
		t.Errorf("the approved validate command did not run in the background loop: %v", err)
	}
	if exec.Command("tmux", "-S", watch.socket, "has-session").Run() == nil {
		watch.keys("q")
	}
}

// backgroundPID is the pid a background start printed: "(pid 1234)".
func backgroundPID(t *testing.T, screen string) int {
	t.Helper()
	m := pidInOutput.FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no pid on the screen:\n%s", screen)
	}
	pid, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
