package status

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

func TestElapsedIsTheAgeWhileRunningAndTheLengthOnceStopped(t *testing.T) {
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	now := start.Add(time.Hour)
	state := &history.State{StartedAt: start, LastIterationAt: start.Add(10 * time.Minute)}
	if got := (Status{Running: true, State: state}).Elapsed(now); got != time.Hour {
		t.Errorf("running: Elapsed = %s, want 1h", got)
	}
	if got := (Status{State: state}).Elapsed(now); got != 10*time.Minute {
		t.Errorf("stopped: Elapsed = %s, want 10m", got)
	}
	if got := (Status{}).Elapsed(now); got != 0 {
		t.Errorf("no state: Elapsed = %s, want 0", got)
	}
}

func TestReadWithoutStateOrLockIsNotRunning(t *testing.T) {
	root := t.TempDir()
	st, err := Read(context.Background(), root, filepath.Join(root, history.LockFile), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if st.Running || st.LockHolder != nil || st.State != nil || st.ElapsedMS != nil || st.Leftover != nil {
		t.Errorf("Read = %+v, want nothing running and no state", st)
	}
}

func TestPhaseOfEachKindOfLoop(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	state := func(s history.State) *history.State { s.SchemaVersion = 1; return &s }
	for _, tc := range []struct {
		name          string
		st            Status
		state, reason string
	}{
		{"never run", Status{}, StateNeverRun, ""},
		{"running", Status{Running: true, State: state(history.State{Active: true})}, StateRunning, ""},
		{"starting", Status{Running: true}, StateRunning, ""},
		{"waiting", Status{Running: true, State: state(history.State{Active: true, WaitUntil: now.Add(time.Minute)})}, StateWaiting, ""},
		{"a wait that is over", Status{Running: true, State: state(history.State{Active: true, WaitUntil: now.Add(-time.Minute)})}, StateRunning, ""},
		{"died", Status{State: state(history.State{Active: true})}, StateInterrupted, "crashed"},
		{"success", Status{State: state(history.State{StopReason: history.StopSuccess})}, StateFinished, "success"},
		{"idle", Status{State: state(history.State{StopReason: history.StopIdle})}, StateFinished, "idle"},
		{"limited", Status{State: state(history.State{StopReason: history.StopLimited})}, StateStopped, "limited"},
		{"interrupted", Status{State: state(history.State{StopReason: history.StopInterrupted})}, StateStopped, "interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if state, reason := phase(tc.st, now); state != tc.state || reason != tc.reason {
				t.Errorf("phase = %s (%s), want %s (%s)", state, reason, tc.state, tc.reason)
			}
		})
	}
}

// A state written before spent_uncosted was kept reads as it did; one whose agent
// reported no cost says so rather than "$0.00", and a mixed one gives a lower bound.
func TestRunSpendSaysWhenTheCostIsNotReported(t *testing.T) {
	for name, tc := range map[string]struct{ toml, want string }{
		"older state":       {"spent_usd = 0.5\nspent_tokens = 10\nspent_iterations = 1\n", "$0.50; 10 tokens"},
		"no cost":           {"spent_tokens = 2300\nspent_iterations = 1\nspent_uncosted = 1\n", "cost not reported; 2,300 tokens"},
		"some without":      {"spent_usd = 0.5\nspent_tokens = 2300\nspent_iterations = 2\nspent_uncosted = 1\n", "at least $0.50 (some iterations did not report a cost); 2,300 tokens"},
		"no cost, a budget": {"spent_tokens = 2300\nspent_iterations = 1\nspent_uncosted = 1\nmax_cost = 10.0\n", "cost not reported (max_cost $10.00 counts reported costs only); 2,300 tokens"},
		"some, a budget":    {"spent_usd = 0.5\nspent_tokens = 2300\nspent_iterations = 2\nspent_uncosted = 1\nmax_cost = 10.0\n", "at least $0.50 of $10.00 (max_cost; some iterations did not report a cost); 2,300 tokens"},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			path := history.StatePath(root)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte("schema_version = 1\nrun = 'r'\n"+tc.toml), 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := history.LoadState(root)
			if err != nil {
				t.Fatal(err)
			}
			if got := RunSpend(&st).Line(); got != tc.want {
				t.Errorf("Line = %q, want %q", got, tc.want)
			}
		})
	}
}
