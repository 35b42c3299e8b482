package agent

import (
	"bytes"
	"os"
	"strconv"
)

// liveMembers lists the running processes of session sid. Zombies do not count: they
// hold no pipes and wait for a parent (often PID 1, which in containers may never reap
// them) to collect their status.
func liveMembers(sid int) ([]member, bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	var members []member
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone between ReadDir and ReadFile
		}
		stat, ok := parseStat(data)
		if ok && stat.session == sid && stat.state != 'Z' && stat.state != 'X' {
			members = append(members, member{pid: pid, pgrp: stat.pgrp})
		}
	}
	return members, true
}

// belongsToRun reports whether a running process of session sid has the environment
// entry marker (RALPH_RUN=…), which every agent git-ralph starts inherits.
func belongsToRun(sid int, marker string) bool {
	members, _ := liveMembers(sid)
	for _, m := range members {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(m.pid) + "/environ")
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
