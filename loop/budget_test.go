package loop

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// costing is an agent command that reports, with a ralph_usage line, the cost of each
// iteration in turn (the last one repeats).
func costing(costs ...string) string {
	cases := ""
	for i, c := range costs[:len(costs)-1] {
		cases += " " + strconv.Itoa(i+1) + ") c=" + c + ";;"
	}
	return `cat >/dev/null; case $RALPH_ITERATION in` + cases + ` *) c=` + costs[len(costs)-1] + `;; esac; echo "{\"ralph_usage\":{\"cost_usd\":$c,\"output_tokens\":100}}"`
}

// The run stops before the iteration that would pass max_cost: it never overspends by
// more than what the last iteration cost beyond the run's mean before it.
func TestMaxCostStopsBeforeTheIterationThatWouldPassIt(t *testing.T) {
	for _, tc := range []struct {
		name       string
		costs      []string
		max        float64
		iterations int
		spent      float64
	}{
		{"constant, exactly reached", []string{"1.0"}, 3, 3, 3},
		{"constant, not reached", []string{"1.0"}, 3.5, 3, 3},
		{"varying", []string{"0.5", "1.5", "1.0"}, 3.2, 3, 3},
		{"first iteration alone passes it", []string{"5"}, 2, 1, 5},
		{"dearer than the mean", []string{"0.5", "0.5", "2"}, 2.2, 3, 3},
		{"cents add up", []string{"0.1"}, 0.3, 3, 0.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(newRepo(t), costing(tc.costs...), 20)
			cfg.Budget = Budget{MaxCost: tc.max}
			rec := &recorder{}
			res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusBudget || res.Cause != "max_cost" || res.Iterations != tc.iterations || math.Abs(res.SpentUSD-tc.spent) > 1e-9 {
				t.Errorf("%s (%s) after %d iterations, $%v spent; want budget (max_cost) after %d, $%v", res.Status, res.Cause, res.Iterations, res.SpentUSD, tc.iterations, tc.spent)
			}
			// no iteration started once the spend so far and the mean passed the budget
			spent := 0.0
			for n, f := range rec.finished() {
				if n > 0 && spent+spent/float64(n) > tc.max+1e-9 {
					t.Errorf("iteration %d started with $%v spent, mean $%v, of $%v", n+1, spent, spent/float64(n), tc.max)
				}
				spent += f.Record.CostUSD
			}
			if res.Status.ExitCode() != 5 {
				t.Errorf("exit code %d", res.Status.ExitCode())
			}
		})
	}
}

// A retry after a limit is a new agent run: it is not started when the budget is spent.
func TestBudgetStopsARetry(t *testing.T) {
	cfg := config(newRepo(t), `cat >/dev/null; echo '{"ralph_usage":{"cost_usd":2}}'; echo "Error: usage limit reached"; exit 1`, 5)
	cfg.Budget = Budget{MaxCost: 1.5}
	cfg.BackoffBase, cfg.BackoffMax = time.Millisecond, time.Millisecond
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	f := rec.finished()
	if res.Status != StatusBudget || res.Cause != "max_cost" || len(f) != 1 || f[0].Outcome != OutcomeHalted || f[0].Record.RateLimitWaits != 1 {
		t.Fatalf("%s (%s), %d iterations: %+v; want one halted iteration that waited once, then budget", res.Status, res.Cause, len(f), f)
	}
	if !strings.Contains(res.Reason, "spent $2.00 of max_cost $1.50") {
		t.Errorf("reason: %s", res.Reason)
	}
}

// Every attempt's usage reaches the user's daily store, and the next run is judged by it.
func TestDailySpendAcrossRuns(t *testing.T) {
	store := history.Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	cfg := config(newRepo(t), costing("1.0"), 2)
	cfg.Budget = Budget{Daily: &store}
	if res, err := Run(context.Background(), cfg, Deps{}); err != nil || res.Status != StatusMaxIters {
		t.Fatalf("%v, %v", res.Status, err)
	}
	if d, _ := store.Day(time.Now()); d.CostUSD != 2 || d.Attempts != 2 || d.Tokens != 200 {
		t.Fatalf("the day after a run without a daily budget: %+v", d)
	}
	other := config(newRepo(t), costing("1.0"), 5)
	other.Budget = Budget{DailyMaxCost: 3.5, Daily: &store}
	res, err := Run(context.Background(), other, Deps{})
	if err != nil || res.Status != StatusBudget || res.Cause != "daily_max_cost" || res.Iterations != 1 {
		t.Errorf("%s (%s) after %d, %v; want daily_max_cost after 1 ($3 spent, $1 more would pass $3.50)", res.Status, res.Cause, res.Iterations, err)
	}
}

// The day's mean per agent run, which judges a new run against daily_max_cost, counts the
// runs that reported a cost only: a loop of an agent that reports none (codex) spent at
// a cost not known, not at $0.
func TestDailyMeanLeavesOutRunsWithoutACost(t *testing.T) {
	store := history.Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	now := time.Now()
	store.Add(now, 1.0, 100) // a loop that reports its cost: $1 a run
	for range 3 {
		store.AddUncosted(now, 100) // a codex loop's runs
	}
	// $1 spent of $1.80: the next run is expected to take $1 (not $0.25), which passes it
	cfg := config(newRepo(t), costing("1.0"), 3)
	cfg.Budget = Budget{DailyMaxCost: 1.8, Daily: &store}
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil || res.Status != StatusBudget || res.Iterations != 0 || !strings.Contains(res.Reason, "about $1.00 (the mean per agent run of your loops today)") {
		t.Fatalf("%s after %d iterations, %v: %s; want daily_max_cost before the first", res.Status, res.Iterations, err, res.Reason)
	}
	if d, _ := store.Day(now); d.Uncosted != 3 || d.Attempts != 4 {
		t.Errorf("the day: %+v, want 3 of 4 runs without a cost", d)
	}
}

// A replayed recording spent nothing: its recorded usage counts toward the run's budgets
// (so that they can be tried on a replay) but not toward the user's day.
func TestReplayedUsageIsNotTheDaysSpend(t *testing.T) {
	store := history.Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	cfg := config(newRepo(t), costing("1.0"), 3)
	cfg.Replay = true
	cfg.Budget = Budget{MaxCost: 2.5, Daily: &store}
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil || res.Status != StatusBudget || res.Cause != "max_cost" {
		t.Fatalf("%s (%s), %v; want max_cost reached by the replayed usage", res.Status, res.Cause, err)
	}
	if d, _ := store.Day(time.Now()); d.CostUSD != 0 || d.Attempts != 0 {
		t.Errorf("the day's spend after a replay: %+v, want nothing", d)
	}
}

// A day's spend file that cannot be read is first found by the budget check before the
// iteration (which cannot move it), then moved aside by the attempt's spend: the warning
// that says where it went, and that the day's count started again, is not held back by
// the first one.
func TestCorruptDailySpendFileSaysWhereItWent(t *testing.T) {
	store := history.Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	if err := os.MkdirAll(store.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	day := filepath.Join(store.Dir, time.Now().Format(time.DateOnly)+".toml")
	if err := os.WriteFile(day, []byte("not toml ["), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config(newRepo(t), costing("0.5"), 1)
	cfg.Budget = Budget{DailyMaxCost: 10, Daily: &store}
	rec := &recorder{}
	if _, err := Run(context.Background(), cfg, Deps{Reporter: rec}); err != nil {
		t.Fatal(err)
	}
	moved, _ := filepath.Glob(day + ".corrupt-*")
	var warned []string
	for _, e := range rec.events {
		if w, ok := e.(Warning); ok && strings.Contains(w.Message, "daily spend") {
			warned = append(warned, w.Message)
		}
	}
	if len(moved) != 1 || !strings.Contains(strings.Join(warned, "\n"), "moved to "+moved[0]) {
		t.Errorf("moved aside as %v; warnings:\n%s\nwant one saying where it went", moved, strings.Join(warned, "\n"))
	}
}

// Token counts an agent reports are summed without wrapping: a report as large as int64
// holds (a preset's JSON can say anything; a custom agent's ralph_usage line is capped
// where it is read) must not make the run's spend negative, which would hand it a credit
// against max_tokens and leave a state file the next loop refuses.
func TestHugeTokenCountsDoNotWrap(t *testing.T) {
	huge := `{"type":"result","is_error":false,"result":"done","usage":{"input_tokens":9223372036854775807,"output_tokens":9223372036854775807}}`
	dir := newRepo(t)
	cfg := config(dir, `cat >/dev/null; echo '`+huge+`'`, 3)
	cfg.Agent = claudeReader(t)
	cfg.Budget = Budget{MaxTokens: 1000}
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusBudget || res.Iterations != 1 || res.SpentTokens != math.MaxInt64 {
		t.Errorf("%s after %d iterations, %d tokens spent; want budget after 1, %d", res.Status, res.Iterations, res.SpentTokens, int64(math.MaxInt64))
	}
	if _, err := history.LoadState(dir); err != nil {
		t.Errorf("the state the run left cannot be read: %v", err)
	}
}
