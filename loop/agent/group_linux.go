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
	members, err := liveMembers(pgid)
	return err != nil || len(members) > 0
}

// liveMembers lists the pids of group pgid's running (not zombie) processes.
func liveMembers(pgid int) ([]string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []string
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
			pids = append(pids, e.Name())
		}
	}
	return pids, nil
}

// belongsToRun reports whether a running process of group pgid has the environment
// entry marker (RALPH_RUN=…), which every agent git-ralph starts inherits.
func belongsToRun(pgid int, marker string) bool {
	pids, _ := liveMembers(pgid)
	for _, pid := range pids {
		env, err := os.ReadFile("/proc/" + pid + "/environ")
		if err != nil {
			continue
		}
		for _, entry := range bytes.Split(env, []byte{0}) {
			if string(entry) == marker {
				return true
			}
		}
	}
	return false
}
