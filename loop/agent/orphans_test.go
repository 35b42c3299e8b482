package agent

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startSession starts `sleep 60` in a session of its own with env added, as an agent
// whose loop has gone would be.
func startSession(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// A left-over agent is not stopped while the loop the state names is a live git-ralph:
// its lock file may have been deleted, but the loop is not gone.
func TestStopOrphansSparesTheAgentOfALiveLoop(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	run := "test-" + time.Now().Format("150405.000000000")
	agent := startSession(t, "RALPH_RUN="+run)
	loop := exec.Command("bash", "-c", "exec -a git-ralph sleep 60")
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { loop.Process.Kill(); loop.Wait() }()
	// exec -a renames it once bash has run: waited for while the stand-in lasts (its
	// minute), for a busy machine may take a while to run bash
	for !isLoop(loop.Process.Pid) {
		if loop.ProcessState != nil || !running(loop.Process.Pid) {
			t.Fatal("the stand-in loop never counted as a git-ralph")
		}
		time.Sleep(10 * time.Millisecond)
	}

	if stopped := StopOrphans(run, loop.Process.Pid, 100*time.Millisecond); len(stopped) > 0 || !running(agent.Process.Pid) {
		t.Fatalf("stopped %v, the agent of a live loop", stopped)
	}
	loop.Process.Kill()
	loop.Wait()
	if stopped := StopOrphans(run, loop.Process.Pid, 100*time.Millisecond); len(stopped) != 1 || stopped[0] != agent.Process.Pid {
		t.Fatalf("stopped %v after the loop died, want the agent's session %d", stopped, agent.Process.Pid)
	}
	agent.Wait()
}

func TestIsLoop(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("needs /proc")
	}
	other := startSession(t)
	for _, tc := range []struct {
		name string
		pid  int
		want bool
	}{
		{"this program", os.Getpid(), true},
		{"another program", other.Process.Pid, false},
		{"init", 1, false},
		{"no process", 0, false},
	} {
		if got := isLoop(tc.pid); got != tc.want {
			t.Errorf("%s: isLoop(%d) = %v, want %v", tc.name, tc.pid, got, tc.want)
		}
	}
}
