package agent

import (
	"errors"
	"syscall"
	"time"
)

// group is the process group (and session) the agent leads; every process it starts
// belongs to it unless it deliberately leaves with setsid.
type group int

// alive reports whether any process of the group is still running.
func (g group) alive() bool {
	if err := syscall.Kill(-int(g), 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	return hasLiveMember(int(g))
}

func (g group) signal(sig syscall.Signal) {
	_ = syscall.Kill(-int(g), sig) // ESRCH: already gone, which is what we want
}

// awaitExit polls until the group is gone, the deadline passes, or hurry is closed.
// It reports whether the group is gone.
func (g group) awaitExit(within time.Duration, hurry <-chan struct{}) bool {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if !g.alive() {
			return true
		}
		select {
		case <-deadline.C:
			return !g.alive()
		case <-hurry:
			return !g.alive()
		case <-tick.C:
		}
	}
}
