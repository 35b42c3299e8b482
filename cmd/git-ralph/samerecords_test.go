package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
)

// replayedFields are the fields of `git ralph history --json` that a replay in a fresh
// clone of the recording's starting point must reproduce: the outcomes, what validation
// said, the usage the preset read, and what happened in git. Times, durations, the run's
// id and the paths of the logs differ, and so does replayed.
var replayedFields = []string{"iteration", "run_iteration", "mode", "exit_code", "outcome", "signal",
	"killed_by", "timed_out", "rate_limit_waits", "retries", "validation", "push", "agent", "model",
	"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd",
	"commit_before", "commit_after", "files_changed", "insertions", "deletions", "error", "overage"}

// sameRecords compares two `git ralph history --json` outputs field by field (see
// replayedFields), and the attempts' exit codes, retries, tokens and cost:
//
//	same-records RECORDED.json REPLAYED.json
func sameRecords(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: same-records RECORDED.json REPLAYED.json")
		return 2
	}
	var lists [2][]map[string]any
	for i, path := range args {
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &lists[i])
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			return 2
		}
	}
	if len(lists[0]) != len(lists[1]) || len(lists[0]) == 0 {
		fmt.Fprintf(os.Stderr, "%d records recorded, %d replayed\n", len(lists[0]), len(lists[1]))
		return 1
	}
	differ := 0
	for n := range lists[0] {
		differ += compareRecord(n, lists[0][n], lists[1][n])
	}
	if differ > 0 {
		return 1
	}
	return 0
}

func compareRecord(n int, recorded, replayed map[string]any) int {
	differ := 0
	for _, f := range replayedFields {
		if !reflect.DeepEqual(recorded[f], replayed[f]) {
			fmt.Fprintf(os.Stderr, "record %d: %s: recorded %v, replayed %v\n", n, f, recorded[f], replayed[f])
			differ++
		}
	}
	if recorded["replayed"] != nil || replayed["replayed"] != true {
		fmt.Fprintf(os.Stderr, "record %d: replayed: recorded %v, replayed %v\n", n, recorded["replayed"], replayed["replayed"])
		differ++
	}
	a, b := attemptsOf(recorded), attemptsOf(replayed)
	if !reflect.DeepEqual(a, b) {
		fmt.Fprintf(os.Stderr, "record %d: attempts: recorded %v, replayed %v\n", n, a, b)
		differ++
	}
	return differ
}

// attemptsOf is a record's attempts without their durations.
func attemptsOf(rec map[string]any) []map[string]any {
	list, _ := rec["attempts"].([]any)
	var out []map[string]any
	for _, x := range list {
		m, _ := x.(map[string]any)
		delete(m, "duration_ms")
		out = append(out, m)
	}
	return out
}
