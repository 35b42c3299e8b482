//go:build unix

package agent

import (
	"errors"
	"syscall"
)

// sessionAttr makes the agent the leader of a new session (and process group), so that
// every process it starts can be found and stopped with it.
func sessionAttr() (*syscall.SysProcAttr, error) {
	return &syscall.SysProcAttr{Setsid: true}, nil
}

// alive reports whether any process of the session is still running.
func (g group) alive() bool {
	if members, known := liveMembers(int(g)); known {
		return len(members) > 0
	}
	return !errors.Is(syscall.Kill(-int(g), 0), syscall.ESRCH)
}

// signal sends sig to the agent's process group and to every other process of its
// session. ESRCH (already gone) is what we want and is ignored.
func (g group) signal(sig syscall.Signal) {
	_ = syscall.Kill(-int(g), sig)
	members, _ := liveMembers(int(g))
	for _, m := range members {
		if m.pgrp != int(g) {
			_ = syscall.Kill(m.pid, sig)
		}
	}
	if sig == syscall.SIGTERM {
		g.signal(syscall.SIGCONT) // a stopped process would hold SIGTERM pending all grace long
	}
}
