package agent

import (
	"bytes"
	"strconv"
	"time"
)

// group is the session the agent leads (its id is the agent's pid, which is also the id
// of the agent's process group). Every process the agent starts stays in the session,
// even one that moves to a process group of its own (`timeout`, `set -m`); only setsid
// leaves it.
type group int

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

// member is a running process of the agent's session.
type member struct {
	pid, pgrp int
}

// procStat is what git-ralph reads of /proc/PID/stat.
type procStat struct {
	state               byte
	ppid, pgrp, session int
}

// parseStat reads /proc/PID/stat: "pid (comm) state ppid pgrp session ...", where comm
// may itself contain spaces and parentheses.
func parseStat(stat []byte) (procStat, bool) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 || end+2 >= len(stat) {
		return procStat{}, false
	}
	fields := bytes.Fields(stat[end+2:])
	if len(fields) < 4 || len(fields[0]) != 1 {
		return procStat{}, false
	}
	ppid, err0 := strconv.Atoi(string(fields[1]))
	pgrp, err1 := strconv.Atoi(string(fields[2]))
	session, err2 := strconv.Atoi(string(fields[3]))
	return procStat{state: fields[0][0], ppid: ppid, pgrp: pgrp, session: session}, err0 == nil && err1 == nil && err2 == nil
}
