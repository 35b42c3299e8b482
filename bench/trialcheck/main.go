// Command trialcheck reads what git-ralph left in a repository after a trial of
// bench/trials.sh and prints what it found as KEY=VALUE lines, one per key, for the
// script to compare. It parses the files itself (with go-toml, as git-ralph does), so a
// torn or damaged file is seen even where git-ralph's own commands would give up on it.
//
//	trialcheck journal WORKTREE GITDIR   the state, the records and the scratch leftovers
//	trialcheck histjson < JSON           `git ralph history --json`: "N RUN COMMIT_BEFORE" lines
//
// journal prints:
//
//	state=ok|missing|torn     .ralph/state.toml parses (torn: it does not, or lacks run)
//	state_run=RUN             the run the state names
//	corrupt_states=K          state.toml.corrupt-* files kept aside by git-ralph
//	last=N                    .ralph/history/last, the last number handed out
//	records=K                 record.toml files that parse
//	state_run_iterations=K    distinct run iterations recorded for the run the state names
//	bad_records=N …           records that do not parse, or name another iteration
//	unrecorded=N …            numbers up to last whose directory has no record (a crashed iteration)
//	missing_dirs=N …          numbers up to last with no directory at all
//	duplicates=RUN:I …        run iterations recorded twice (crashed, interrupted and halted records, whose step runs again, aside)
//	run_gaps=RUN:I …          run iterations missing before the run's highest recorded one
//	scratch_indexes=K         ralph-index-* directories in GITDIR (scratch indexes)
//	scratch_temps=K           *.tmp files under .ralph (atomic writes cut short)
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

func main() {
	switch {
	case len(os.Args) == 4 && os.Args[1] == "journal":
		journal(os.Args[2], os.Args[3])
	case len(os.Args) == 2 && os.Args[1] == "histjson":
		histJSON(os.Stdin)
	default:
		fmt.Fprintln(os.Stderr, "usage: trialcheck journal WORKTREE GITDIR | trialcheck histjson < JSON")
		os.Exit(2)
	}
}

func journal(root, gitDir string) {
	ralph := filepath.Join(root, ".ralph")
	state, run := readState(filepath.Join(ralph, "state.toml"))
	fmt.Printf("state=%s\nstate_run=%s\n", state, run)
	corrupt, _ := filepath.Glob(filepath.Join(ralph, "state.toml.corrupt-*"))
	fmt.Printf("corrupt_states=%d\n", len(corrupt))

	hist := filepath.Join(ralph, "history")
	last := 0
	if data, err := os.ReadFile(filepath.Join(hist, "last")); err == nil {
		last, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	fmt.Printf("last=%d\n", last)

	var bad, unrecorded, missing []string
	seen := map[string]int{}    // "run:i" → how many records
	highest := map[string]int{} // run → highest run iteration recorded
	records := 0
	for n := 1; n <= last; n++ {
		dir := filepath.Join(hist, strconv.Itoa(n))
		if _, err := os.Stat(dir); err != nil {
			missing = append(missing, strconv.Itoa(n))
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "record.toml"))
		if err != nil {
			unrecorded = append(unrecorded, strconv.Itoa(n))
			continue
		}
		var rec struct {
			Iteration    int    `toml:"iteration"`
			Run          string `toml:"run"`
			RunIteration int    `toml:"run_iteration"`
			Outcome      string `toml:"outcome"`
		}
		if err := toml.Unmarshal(data, &rec); err != nil || rec.Iteration != n || rec.Run == "" {
			bad = append(bad, strconv.Itoa(n))
			continue
		}
		records++
		if !counts(rec.Outcome) {
			continue // a step that ran again: crashed (kill -9), interrupted or halted
		}
		key := rec.Run + ":" + strconv.Itoa(rec.RunIteration)
		seen[key]++
		highest[rec.Run] = max(highest[rec.Run], rec.RunIteration)
	}
	var dups, gaps []string
	for key, k := range seen {
		if k > 1 {
			dups = append(dups, key)
		}
	}
	for run, top := range highest {
		for i := 1; i < top; i++ {
			if seen[run+":"+strconv.Itoa(i)] == 0 {
				gaps = append(gaps, run+":"+strconv.Itoa(i))
			}
		}
	}
	sort.Strings(dups)
	sort.Strings(gaps)
	fmt.Printf("records=%d\n", records)
	stateRunIterations := 0
	for key := range seen {
		if run != "" && strings.HasPrefix(key, run+":") {
			stateRunIterations++
		}
	}
	fmt.Printf("state_run_iterations=%d\n", stateRunIterations)
	fmt.Printf("bad_records=%s\nunrecorded=%s\nmissing_dirs=%s\n", strings.Join(bad, " "), strings.Join(unrecorded, " "), strings.Join(missing, " "))
	fmt.Printf("duplicates=%s\nrun_gaps=%s\n", strings.Join(dups, " "), strings.Join(gaps, " "))
	indexes, temps := scratch(ralph, gitDir)
	fmt.Printf("scratch_indexes=%d\nscratch_temps=%d\n", indexes, temps)
}

// readState says whether the state file parses, and the run it names.
func readState(path string) (string, string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "missing", ""
	}
	var st struct {
		Run string `toml:"run"`
	}
	if err := toml.Unmarshal(data, &st); err != nil || st.Run == "" {
		return "torn", ""
	}
	return "ok", st.Run
}

// scratch counts what crashed runs can leave behind: scratch index directories in the git
// directory and temp files of atomic writes under .ralph.
func scratch(ralph, gitDir string) (indexes, temps int) {
	if m, err := filepath.Glob(filepath.Join(gitDir, "ralph-index-*")); err == nil {
		indexes = len(m)
	}
	filepath.WalkDir(ralph, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".tmp") {
			temps++
		}
		return nil
	})
	return indexes, temps
}

func histJSON(r io.Reader) {
	var recs []struct {
		Iteration    int    `json:"iteration"`
		Run          string `json:"run"`
		CommitBefore string `json:"commit_before"`
	}
	data, _ := io.ReadAll(r)
	if err := json.Unmarshal(data, &recs); err != nil {
		fmt.Fprintf(os.Stderr, "trialcheck: history --json: %v\n", err)
		os.Exit(1)
	}
	for _, rec := range recs {
		fmt.Printf("%d %s %s\n", rec.Iteration, rec.Run, rec.CommitBefore)
	}
}

// counts reports whether a record's outcome counts as the step's run: the loop runs a
// crashed, interrupted or halted step again under the same run iteration, so those
// records are not duplicates.
func counts(outcome string) bool {
	return outcome != "crashed" && outcome != "interrupted" && outcome != "halted"
}
