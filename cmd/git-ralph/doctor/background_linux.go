//go:build linux

package doctor

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// sessionLeader reports whether the process pid leads a session of its own (its session
// id, the sixth field of /proc/PID/stat, is its pid): a loop that --background
// detached; one started from a shell or cron belongs to theirs.
func sessionLeader(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')') // the command's name may hold anything
	if i < 0 {
		return false
	}
	fields := strings.Fields(string(stat[i+1:])) // state, ppid, pgrp, session, …
	if len(fields) < 4 {
		return false
	}
	sid, err := strconv.Atoi(fields[3])
	return err == nil && sid == pid
}
