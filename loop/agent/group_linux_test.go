package agent

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// leaveSession runs command as the leader of a new session and reaps it, as Run does,
// leaving whatever it started behind. It returns the session's id.
func leaveSession(t testing.TB, dir, command string) int {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		t.Fatalf("the session's leader failed: %v", err)
	}
	return cmd.Process.Pid
}

func TestAliveFindsALeftoverInAProcessGroupOfItsOwn(t *testing.T) {
	dir := t.TempDir()
	sid := leaveSession(t, dir, `true`)
	if group(sid).alive() {
		t.Errorf("a session whose only process exited is alive")
	}

	// timeout(1) makes a process group of its own; its parent, the leader, is gone: the
	// leader's process group is empty, the session is not
	sid = leaveSession(t, dir, `timeout 60 sleep 60 & echo $! > child.pid`)
	child := readPid(t, filepath.Join(dir, "child.pid"))
	t.Cleanup(func() { syscall.Kill(-child, syscall.SIGKILL); syscall.Kill(child, syscall.SIGKILL) })
	members, known := liveMembers(sid)
	if !group(sid).alive() || !known || len(members) == 0 || members[0].pid != child {
		t.Errorf("a leftover %d in its own process group: alive=%v members=%v", child, group(sid).alive(), members)
	}
	// killed, it goes once reaped, which a busy machine may delay; 30 s is still half of
	// what it would last if the kill had missed it
	deadline := time.Now().Add(30 * time.Second)
	for group(sid).alive() && time.Now().Before(deadline) {
		// timeout and its sleep, in their group once timeout has made it
		syscall.Kill(-child, syscall.SIGKILL)
		syscall.Kill(child, syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond)
	}
	if group(sid).alive() {
		t.Errorf("the leftover %d was killed, its session is still alive", child)
	}
}

// BenchmarkLiveMembers is the search of /proc after every agent and validate command,
// for a session that has ended: one pass over every process on the machine.
func BenchmarkLiveMembers(b *testing.B) {
	sid := leaveSession(b, b.TempDir(), `true`)
	for b.Loop() {
		if members, _ := liveMembers(sid); len(members) > 0 {
			b.Fatal("an ended session has members")
		}
	}
}

// BenchmarkSessionsOfRun is the search of /proc for processes of the run that left the
// agent's session, after every agent, validate and judge command, with none to find:
// one pass over every process on the machine.
func BenchmarkSessionsOfRun(b *testing.B) {
	for b.Loop() {
		if sessions := sessionsOfRun("RALPH_RUN=no-such-run"); len(sessions) > 0 {
			b.Fatal("found sessions of a run that never ran")
		}
	}
}
