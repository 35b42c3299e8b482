//go:build !linux

package agent

import (
	"os"
	"syscall"
)

// liveMembers cannot list a session's processes without /proc; the caller falls back to
// signalling the process group alone.
func liveMembers(sid int) ([]member, bool) { return nil, false }

// sessionsOfRun cannot read another process's environment without /proc, so it finds
// none: an orphaned agent is left alone rather than risk stopping an unrelated one.
func sessionsOfRun(marker string) []int { return nil }

// isLoop cannot tell a git-ralph from another program without /proc: any live process
// counts, so that a left-over agent is never stopped under a loop that may be alive.
func isLoop(pid int) bool {
	p, err := os.FindProcess(pid)
	return pid > 1 && err == nil && p.Signal(syscall.Signal(0)) == nil
}

// supervised is false: without /proc no session is found to ask about.
func supervised(sid int) bool { return false }

// deathSignal does nothing where there is no parent-death signal: the watchdog remains.
func deathSignal(attr *syscall.SysProcAttr) {}
