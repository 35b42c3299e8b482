package agent

import (
	"syscall"
	"time"
)

// StopOrphans stops what is left of an agent's process group after git-ralph itself
// died (kill -9, a crash, a lost terminal): SIGTERM, grace, SIGKILL, as for a timeout.
// The group id comes from the state file and may have been reused since, so the group
// is stopped only if one of its processes carries RALPH_RUN=run in its environment.
// It reports whether it found and stopped such a group.
func StopOrphans(pgid int, run string, grace time.Duration) bool {
	g := group(pgid)
	if pgid <= 1 || run == "" || !g.alive() || !belongsToRun(pgid, "RALPH_RUN="+run) {
		return false
	}
	if grace <= 0 {
		grace = DefaultGrace
	}
	g.signal(syscall.SIGTERM)
	if !g.awaitExit(grace, nil) {
		g.signal(syscall.SIGKILL)
		g.awaitExit(time.Second, nil)
	}
	return true
}
