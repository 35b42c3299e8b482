package agent

import (
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
