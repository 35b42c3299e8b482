package mergequeue

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// killGroup stops what is left of the process group pgid, the validate command of a dead
// merge of the loop name, if anything — and only if it is still that: a group id written
// down by a command that died may since name another program's group (pids wrap around,
// after 32768 on many machines). The group is the validator's while one of its running
// members carries the marker the queue gives it (RALPH_MERGE=name in its environment).
func killGroup(pgid int, name string) {
	if pgid > 1 && groupCarries(pgid, []byte("RALPH_MERGE="+name)) {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// groupCarries reports whether a running member of process group pgid has the
// environment entry marker.
func groupCarries(pgid int, marker []byte) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil || !inGroup(stat, pgid) {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, entry := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(entry, marker) {
				return true
			}
		}
	}
	return false
}

// inGroup reads a /proc/PID/stat: whether the process runs (not a zombie) in group pgid.
// The fields after the command's name, which ends at the last ')': state, ppid, pgrp.
func inGroup(stat []byte, pgid int) bool {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return false
	}
	fields := bytes.Fields(stat[end+1:])
	if len(fields) < 3 || len(fields[0]) != 1 || fields[0][0] == 'Z' || fields[0][0] == 'X' {
		return false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	return err == nil && pgrp == pgid
}
