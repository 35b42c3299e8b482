package agent

import (
	"os"
	"syscall"
	"time"
)

// StopOrphans stops every process left behind by run after git-ralph itself died
// (kill -9, a crash, a lost terminal): SIGTERM, grace, SIGKILL, as for a timeout.
//
// The processes are found by the RALPH_RUN=run entry that every agent git-ralph starts
// inherits, not by the process group saved in the state file: the agent may have started
// (and the loop died) before that save, a group id may have been reused since, and a
// process that called setsid has left the group but not the environment. Each session
// holding such a process is stopped whole. It returns the sessions it stopped.
//
// Nothing is stopped while loopPID (the pid the state file names) is a live git-ralph
// other than this one, and no session whose leader is still a live git-ralph's child: an
// agent whose loop is alive is not left over, even if its lock file was deleted.
func StopOrphans(run string, loopPID int, grace time.Duration) []int {
	if run == "" || (loopPID != os.Getpid() && isLoop(loopPID)) {
		return nil
	}
	sessions := Leftovers(run)
	if len(sessions) > 0 {
		if grace <= 0 {
			grace = DefaultGrace
		}
		stopSessions(sessions, grace, nil)
	}
	return sessions
}

// Leftovers lists the sessions holding a process of run whose git-ralph is gone.
func Leftovers(run string) []int {
	if run == "" {
		return nil
	}
	var left []int
	for _, sid := range sessionsOfRun("RALPH_RUN=" + run) {
		if !supervised(sid) {
			left = append(left, sid)
		}
	}
	return left
}

// stopSessions sends SIGTERM to every process of the sessions, waits up to grace (cut
// short by hurry), then SIGKILLs what is left. It reports whether all of them are gone.
func stopSessions(sessions []int, grace time.Duration, hurry <-chan struct{}) bool {
	groups := make([]group, len(sessions))
	for i, sid := range sessions {
		groups[i] = group(sid)
		groups[i].signal(syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	gone := true
	for _, g := range groups {
		if !g.awaitExit(time.Until(deadline), hurry) {
			g.signal(syscall.SIGKILL)
			gone = g.awaitExit(time.Second, nil) && gone
		}
	}
	return gone
}
