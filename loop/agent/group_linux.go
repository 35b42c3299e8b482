package agent

import (
	"bytes"
	"os"
	"strconv"
)

// hasLiveMember reports whether any process of group pgid is still running. Members that
// are only zombies do not count: they hold no pipes and are waiting for a parent (often
// PID 1, which in containers may never reap them) to collect their status.
func hasLiveMember(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone between ReadDir and ReadFile
		}
		state, group, ok := parseStat(stat)
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
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
