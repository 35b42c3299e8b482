package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asJSON makes states comparable across a round trip, where times come back equal but in
// a different *time.Location.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeState(t *testing.T, root, content string) string {
	t.Helper()
	path := StatePath(root)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadStateWithoutFile(t *testing.T) {
	s, err := LoadState(t.TempDir())
	if err != nil || s.Exists() || s != (State{}) {
		t.Errorf("LoadState = %+v, %v; want the zero State and no error", s, err)
	}
}

func TestStateRoundTrip(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.UTC)
	want := State{SchemaVersion: StateSchema, Run: "20261121-100000", Active: true, Iteration: 4,
		Mode: "build", StartedAt: start, LastIterationAt: start.Add(time.Minute), MaxIterations: 10,
		ErrorCount: 2, ConsecutiveErrors: 1, LastError: "exit 3: \"quoted\"\nand 'more'",
		LastCommit: "0123abcd", IdleIterations: 1, StopReason: StopInterrupted, ExitCode: 130,
		AgentPGID: 4242, AgentStartedAt: start.Add(2 * time.Minute),
		WaitUntil: start.In(time.FixedZone("CET", 3600)), PID: 77, Host: "box"}
	if err := SaveState(root, want); err != nil {
		t.Fatal(err)
	}
	got, err := LoadState(root)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Exists() || asJSON(t, got) != asJSON(t, want) {
		t.Errorf("round trip:\n got %s\nwant %s", asJSON(t, got), asJSON(t, want))
	}
	if _, err := os.Stat(filepath.Join(root, Dir, ".gitignore")); err != nil {
		t.Errorf("SaveState did not write .ralph/.gitignore: %v", err)
	}
}

func TestSaveStateOmitsZeroTimesAndLeavesNoTempFiles(t *testing.T) {
	root := t.TempDir()
	for i := range 5 {
		if err := SaveState(root, State{Iteration: i, StartedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(StatePath(root))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"last_iteration_at", "agent_started_at", "wait_until"} {
		if strings.Contains(string(data), key) {
			t.Errorf("zero time %s written:\n%s", key, data)
		}
	}
	if !strings.Contains(string(data), "schema_version = 1\n") {
		t.Errorf("no schema_version = 1 in\n%s", data)
	}
	entries, _ := os.ReadDir(filepath.Join(root, Dir))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ".gitignore state.toml" {
		t.Errorf(".ralph holds %v, want only .gitignore and state.toml", names)
	}
}

func TestLoadStateKeepsACorruptFileAside(t *testing.T) {
	tests := []struct {
		name, content string
		line          int
	}{
		{"syntax error", "schema_version = 1\nrun = 'r'\niteration = \nmode = 'build'\n", 3},
		{"wrong type", "schema_version = 1\nrun = 'r'\n\niteration = 'four'\n", 4},
		{"no schema version", "run = 'r'\niteration = 4\n", 0},
		{"schema version zero", "run = 'r'\nschema_version = 0\n", 2},
		{"empty file", "", 0},
		{"torn write", "schema_version = 1\nrun = 'r'\nlast_error = 'abc", 3},
		// committed by a repository: a resumed run went on at iteration -9223372036854775808
		{"iteration that would overflow", "schema_version = 1\nrun = 'r'\niteration = 9223372036854775807\n", 3},
		{"negative count", "schema_version = 1\nrun = 'r'\n\nconsecutive_errors = -1\n", 4},
		{"negative limit", "schema_version = 1\nmax_iterations = -2\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := writeState(t, root, tt.content)
			_, err := LoadState(root)
			var ce *CorruptStateError
			if !errors.As(err, &ce) {
				t.Fatalf("LoadState error = %v, want a *CorruptStateError", err)
			}
			if ce.Path != path || ce.Line != tt.line {
				t.Errorf("error names %s line %d, want %s line %d", ce.Path, ce.Line, path, tt.line)
			}
			if !strings.Contains(ce.Error(), path) || (tt.line > 0 && !strings.Contains(ce.Error(), fmt.Sprintf("line %d", tt.line))) {
				t.Errorf("Error() = %q does not name the file and line", ce.Error())
			}
			if kept, err := os.ReadFile(ce.KeptAs); err != nil || string(kept) != tt.content {
				t.Errorf("kept copy %s: %q, %v; want the original content", ce.KeptAs, kept, err)
			}
			if !strings.HasPrefix(filepath.Base(ce.KeptAs), "state.toml.corrupt-") || !strings.Contains(ce.Hint(), ce.KeptAs) {
				t.Errorf("kept as %s, hint %q", ce.KeptAs, ce.Hint())
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the corrupt file is still at %s: %v", path, err)
			}
		})
	}
}

func TestCorruptCopiesAreNeverOverwritten(t *testing.T) {
	root := t.TempDir()
	seen := map[string]bool{}
	for i := range 3 { // within one second: all three want the same name
		writeState(t, root, fmt.Sprintf("broken %d", i))
		_, err := LoadState(root)
		var ce *CorruptStateError
		if !errors.As(err, &ce) {
			t.Fatalf("LoadState error = %v", err)
		}
		seen[ce.KeptAs] = true
	}
	matches, _ := filepath.Glob(StatePath(root) + ".corrupt-*")
	if len(seen) != 3 || len(matches) != 3 {
		t.Errorf("kept %v, files %v; want three distinct copies", seen, matches)
	}
}

func TestLoadStateRefusesANewerSchema(t *testing.T) {
	root := t.TempDir()
	// A newer file may also have changed the type of a known field: still "newer", not corrupt.
	path := writeState(t, root, "schema_version = 2\nrun = 'r'\niteration = 'x'\nnew_key = true\n")
	_, err := LoadState(root)
	var ne *NewerStateError
	if !errors.As(err, &ne) || ne.Version != 2 || ne.Path != path {
		t.Fatalf("LoadState error = %#v, want a *NewerStateError for version 2 at %s", err, path)
	}
	if !strings.Contains(ne.Error(), "schema_version 2") || !strings.Contains(ne.Hint(), "newer git-ralph") {
		t.Errorf("Error() = %q, Hint() = %q", ne.Error(), ne.Hint())
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the newer state file was moved: %v", err)
	}
}

func TestLoadStateIgnoresUnknownKeys(t *testing.T) {
	root := t.TempDir()
	writeState(t, root, "schema_version = 1\nrun = 'r'\nfuture = 3\niteration = 2\n[future_table]\nx = 1\n")
	s, err := LoadState(root)
	if err != nil || s.Run != "r" || s.Iteration != 2 {
		t.Errorf("LoadState = %+v, %v; want run r, iteration 2", s, err)
	}
}

func TestLoadStateRemovesOnlyStaleTempFiles(t *testing.T) {
	root := t.TempDir()
	writeState(t, root, "schema_version = 1\n")
	dir := filepath.Join(root, Dir)
	old := filepath.Join(dir, ".state.toml.123"+tempSuffix)
	fresh := filepath.Join(dir, ".state.toml.456"+tempSuffix)
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * staleTempAge)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadState(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp file kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temp file (a writer at work) was removed: %v", err)
	}
}

func TestStopReasonFinished(t *testing.T) {
	for r, want := range map[StopReason]bool{StopSuccess: true, StopMaxIters: true, StopAborted: true,
		StopIdle: true, StopStagnant: true, StopInterrupted: false, StopCrashed: false, StopLimited: false,
		StopFatal: false, StopBudget: false, "": false} {
		if r.Finished() != want {
			t.Errorf("%q.Finished() = %v, want %v", r, !want, want)
		}
	}
}

func TestTOMLAndJSONNamesAgree(t *testing.T) {
	for _, v := range []any{State{}, Record{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			f := typ.Field(i)
			tomlName, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tomlName == "" || tomlName != jsonName {
				t.Errorf("%s.%s: toml %q, json %q", typ.Name(), f.Name, tomlName, jsonName)
			}
		}
	}
}

// TestSaveStateSurvivesSIGKILL kills a process that saves states in a tight loop at random
// instants; every time, the state must load and be one the process wrote in full, and the
// iteration never goes back. (It shows atomicity against a process crash; the fsyncs that
// cover a power loss cannot be tested this way.)
func TestSaveStateSurvivesSIGKILL(t *testing.T) {
	kills := 200
	if testing.Short() {
		kills = 40
	}
	const workers = 4 // separate repositories, killed in parallel to keep the test short
	for w := range workers {
		t.Run(fmt.Sprintf("worker-%d", w), func(t *testing.T) {
			t.Parallel()
			killSaverRepeatedly(t, t.TempDir(), kills/workers)
		})
	}
}

func killSaverRepeatedly(t *testing.T, root string, kills int) {
	last := 0
	for range kills {
		cmd, line := startHelper(t, "save-states", "HISTORY_TEST_ROOT="+root)
		if line != "ready" {
			t.Fatalf("helper said %q", line)
		}
		time.Sleep(time.Duration(rand.IntN(20_000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		s, err := LoadState(root)
		if err != nil {
			t.Fatalf("after a kill: %v", err)
		}
		if s.Iteration <= last || s.LastError != payload(s.Iteration) {
			t.Fatalf("after a kill: iteration %d (was %d), last_error of %d bytes: not a state the helper wrote",
				s.Iteration, last, len(s.LastError))
		}
		last = s.Iteration
	}
	if matches, _ := filepath.Glob(StatePath(root) + ".corrupt-*"); len(matches) > 0 {
		t.Errorf("corrupt states were found: %v", matches)
	}
	t.Logf("%d kills, %d states saved", kills, last)
}

// A committed state file must not hand a run a credit against its budget.
func TestStateRefusesImpossibleSpend(t *testing.T) {
	for _, bad := range []string{"spent_usd = -100.0", "spent_usd = nan", "spent_tokens = -1", "spent_iterations = -2", "max_cost = -inf",
		"spent_iterations = 9223372036854775807", // one more would be negative: a mean per iteration below zero
		"feedback_left_out = -3"} {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, Dir), 0o755)
		os.WriteFile(StatePath(root), []byte("schema_version = 1\nrun = \"r\"\n"+bad+"\n"), 0o644)
		_, err := LoadState(root)
		var corrupt *CorruptStateError
		if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "line 3") {
			t.Errorf("%s: %v; want a corrupt state at line 3", bad, err)
		}
	}
}

// A state file can be committed: its texts are bounded as the loop writes them, so that a
// hostile one cannot hand a resumed run a task or feedback of tens of megabytes for every
// prompt.
func TestStateRefusesTextsNoLoopWrites(t *testing.T) {
	huge := strings.Repeat("x", MaxStateText+1)
	for _, key := range []string{"task", "feedback", "earlier_feedback", "template"} {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, Dir), 0o755)
		value := huge
		if key == "template" {
			value = strings.Repeat("t", 65)
		}
		os.WriteFile(StatePath(root), []byte("schema_version = 1\nrun = \"r\"\n"+key+" = \""+value+"\"\n"), 0o644)
		_, err := LoadState(root)
		var corrupt *CorruptStateError
		if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), key) {
			t.Errorf("%s of %d bytes: %v; want a corrupt state at line 3 naming it", key, len(value), err)
		}
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, Dir), 0o755)
	fine := strings.Repeat("y", MaxStateText)
	os.WriteFile(StatePath(root), []byte("schema_version = 1\nrun = \"r\"\ntask = \""+fine+"\"\nfeedback = \""+fine+"\"\ntemplate = \"tdd\"\n"), 0o644)
	if s, err := LoadState(root); err != nil || s.Task != fine {
		t.Errorf("texts at the bound: %v", err)
	}
}
