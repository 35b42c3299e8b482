package agent

import (
	"bytes"
	"errors"
	"strconv"
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

// parseStat reads the state and process group from /proc/PID/stat:
// "pid (comm) state ppid pgrp ...", where comm may itself contain spaces and parentheses.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 || end+2 >= len(stat) {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[end+2:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	return fields[0][0], pgrp, err == nil
}
