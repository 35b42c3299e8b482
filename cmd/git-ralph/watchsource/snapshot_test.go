package watchsource

import (
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/watch"
	"github.com/git-ralph/git-ralph/history"
)

// The badge says what the loop is doing, and needs-review wins over how its run ended.
func TestWatchState(t *testing.T) {
	now := time.Now()
	ran := func(reason history.StopReason) *history.State { return &history.State{StopReason: reason} }
	for _, c := range []struct {
		st   status.Status
		want watch.State
	}{
		{status.Status{Running: true, State: &history.State{}}, watch.Running},
		{status.Status{Running: true, State: &history.State{}, PauseRequested: true}, watch.Pausing},
		{status.Status{Running: true, State: &history.State{PausedAt: now}}, watch.Paused},
		{status.Status{Running: true, State: &history.State{WaitUntil: now.Add(time.Minute)}}, watch.Waiting},
		{status.Status{State: ran(history.StopSuccess), Place: status.Place{Name: "a", Review: "conflict"}}, watch.NeedsReview},
		{status.Status{State: ran(history.StopFatal)}, watch.Failed},
		{status.Status{State: &history.State{Active: true}}, watch.Failed},
		{status.Status{State: ran(history.StopMaxIters)}, watch.Done},
		{status.Status{State: ran(history.StopInterrupted)}, watch.Stopped},
		{status.Status{}, watch.NotRun},
	} {
		if got := state(c.st, now); got != c.want {
			t.Errorf("%+v: %s, want %s", c.st, got, c.want)
		}
	}
}

// The iterations listed are the current run's, oldest first, the running one last; the
// agent and model are the latest record's, the mean their durations'.
func TestWatchIterations(t *testing.T) {
	root := t.TempDir()
	store, err := history.OpenStore(root)
	if err != nil {
		t.Fatal(err)
	}
	recs := []history.Record{
		{Run: "old", Outcome: "success", DurationMS: 1000},
		{Run: "now", Outcome: "success", Validation: "passed", DurationMS: 60000, Agent: "claude", Model: "sonnet", CostUSD: 0.5, Insertions: 3},
		{Run: "now", Outcome: "failure", Validation: "failed: exit code 1", DurationMS: 120000, Agent: "claude", Model: "opus"},
	}
	for i := range recs {
		n, err := store.Next()
		if err != nil {
			t.Fatal(err)
		}
		recs[i].Iteration = n
		if err := store.Save(recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.Next(); err != nil { // the running iteration's number
		t.Fatal(err)
	}
	st := status.Status{Running: true, State: &history.State{Run: "now", InIteration: true}, HistoryIteration: 4}
	var snap watch.Snapshot
	(&Reader{Root: root}).iterations(&snap, store, st)
	var got []string
	for _, it := range snap.Iterations {
		got = append(got, strings.TrimSpace(it.Outcome+" "+it.Validation+" "+it.Cost))
	}
	if strings.Join(got, "|") != "success passed $0.50|failure failed: exit code 1|" || !snap.Iterations[2].Running {
		t.Errorf("rows %q (running last: %+v)", got, snap.Iterations)
	}
	if snap.Agent != "claude" || snap.Model != "opus" || snap.Mean != 90*time.Second {
		t.Errorf("agent %q model %q mean %s, want claude opus 1m30s", snap.Agent, snap.Model, snap.Mean)
	}
}

// Each budget is a bar of its own: the run's cost and tokens, and the daily budget
// against what all the user's loops spent today.
func TestWatchBudgets(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	now := time.Now()
	spend, err := history.UserSpend()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spend.Add(now, 3, 100); err != nil {
		t.Fatal(err)
	}
	var snap watch.Snapshot
	(&Reader{}).spend(&snap, &history.State{SpentUSD: 1.2, MaxCost: 5, SpentTokens: 1000, MaxTokens: 4000, DailyMaxCost: 10}, now)
	var got []string
	for _, b := range snap.Budgets {
		got = append(got, b.Text)
	}
	if want := "$1.20 of $5.00|1,000 of 4,000 tokens|$3.00 of $10.00 today"; strings.Join(got, "|") != want {
		t.Errorf("budgets %q, want %q", strings.Join(got, "|"), want)
	}
}
