//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/servesource"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
)

// The dashboard finds a loop started with --background as it finds any (by its lock) and
// its buttons steer it: the loop shows running with its pid, Pause holds it after its
// iteration, Cancel ends it.
func TestServeSteersABackgroundLoop(t *testing.T) {
	scratchRepo(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if err := os.WriteFile(".gitignore", []byte("go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := installSelf(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := exec.Command("git-ralph", "loop", "-b", "--max", "3", "--idle-threshold", "0", "--agent-cmd",
		`echo "hello from iteration $RALPH_ITERATION"; while [ ! -e go ]; do sleep 0.1; done`).CombinedOutput()
	if err != nil {
		t.Fatalf("loop -b: %v\n%s", err, out)
	}
	pid := backgroundPID(t, string(out))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })

	ctx := context.Background()
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := repoSource{Repo: servesource.Repo{Here: here}}.Loops(ctx)
	if err != nil || len(runs) != 1 || runs[0].State != status.StateRunning || runs[0].PID != pid {
		t.Fatalf("Loops: %+v, %v; want main running as pid %d", runs, err, pid)
	}
	c, base := dashboard(t)
	if said := press(t, c, base, "pause"); !strings.Contains(said, "pauses once its current iteration is recorded") {
		t.Errorf("pause said %q", said)
	}
	if err := os.WriteFile("go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the loop to pause", func() bool { return strings.Contains(ralph(t, "status"), "paused since") })
	if said := press(t, c, base, "cancel"); said == "" {
		t.Errorf("cancel said nothing")
	}
	waitGone(t, pid)
	if st := ralph(t, "status"); !strings.Contains(st, "not running") {
		t.Errorf("after Cancel, status:\n%s", st)
	}
}
