package loop

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// The loop's side of reading the agents: what it does with what the agents' output
// says.

func TestAFailingAgentIsTheBreakersNotIdle(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "API is down: 418" >&2; exit 1`, 10)
	cfg.IdleThreshold, cfg.MaxConsecutiveErrors = 2, 3
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusAborted || res.Iterations != 3 {
		t.Fatalf("status %s after %d iterations, want aborted after 3 (not idle after 2)", res.Status, res.Iterations)
	}
	last := rec.finished()[2]
	if last.Reason != "exit code 1: API is down: 418" || last.Record.Error != "API is down: 418" || last.Idle != 0 {
		t.Errorf("reason %q, record error %q, idle %d", last.Reason, last.Record.Error, last.Idle)
	}
}

func TestIdleCountsOnlySuccessesThatChangeNothing(t *testing.T) {
	dir := newRepo(t)
	// success, failure, success: two idle successes with a failure between them
	cfg := config(dir, `[ "$RALPH_ITERATION" = 2 ] && exit 1; true`, 10)
	cfg.IdleThreshold = 2
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusIdle || res.Iterations != 3 {
		t.Errorf("status %s after %d iterations, want idle after 3", res.Status, res.Iterations)
	}
}

func TestEveryAttemptIsPaidForAndRecorded(t *testing.T) {
	dir := newRepo(t)
	// claude stream-json: an overloaded attempt that cost 0.005, then one that cost 0.01
	cfg := config(dir, `n=$(cat attempts 2>/dev/null || echo 0); echo $((n+1)) > attempts
		if [ "$n" = 0 ]; then
			echo '{"type":"result","is_error":true,"api_error_status":529,"result":"API Error: Repeated 529 Overloaded errors","total_cost_usd":0.005,"usage":{"input_tokens":4,"output_tokens":20}}'
			exit 1
		fi
		echo '{"type":"result","is_error":false,"result":"done","total_cost_usd":0.01,"usage":{"input_tokens":6,"output_tokens":30}}'`, 1)
	cfg.Agent = claudeReader(t)
	cfg.BackoffBase, cfg.BackoffMax = 10*time.Millisecond, 50*time.Millisecond
	rec := &recorder{}
	if _, err := Run(context.Background(), cfg, Deps{Reporter: rec}); err != nil {
		t.Fatal(err)
	}
	r := rec.finished()[0].Record
	if r.CostUSD < 0.0149 || r.CostUSD > 0.0151 || r.InputTokens != 10 || r.OutputTokens != 50 {
		t.Errorf("recorded cost %v, tokens %d/%d; want the sums 0.015, 10/50", r.CostUSD, r.InputTokens, r.OutputTokens)
	}
	if len(r.Attempts) != 2 || r.Attempts[0].Retried != "transient" || r.Attempts[0].CostUSD != 0.005 || r.Attempts[1].CostUSD != 0.01 {
		t.Errorf("attempts = %+v", r.Attempts)
	}
}

func TestSuccessThenACrashIsDoneOnce(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `n=$(cat attempts 2>/dev/null || echo 0); echo $((n+1)) > attempts
		echo '{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"All done. <promise>SUCCESS</promise>"}]}}'
		echo '{"type":"result","is_error":true,"api_error_status":500,"result":"API Error: 500 Internal server error"}'
		exit 1`, 5)
	cfg.Agent = claudeReader(t)
	cfg.BackoffBase, cfg.BackoffMax = 10*time.Millisecond, 50*time.Millisecond
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusSuccess || res.Iterations != 1 {
		t.Errorf("status %s after %d iterations, want success after 1", res.Status, res.Iterations)
	}
	if n := readFile(t, dir, "attempts"); n != "1\n" {
		t.Errorf("the agent ran %q times, want once", n)
	}
}

func TestExitReasonNamesOnlyRealSignals(t *testing.T) {
	for code, want := range map[int]string{
		1:   "exit code 1",
		137: "exit code 137 (SIGKILL in the shell's words)",
		143: "exit code 143 (SIGTERM in the shell's words)",
		144: "exit code 144",
		255: "exit code 255",
	} {
		if got := exitReason(code); got != want {
			t.Errorf("exitReason(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestTooLongStatesTheTimeLeft(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	got := tooLong(now.Add(7*time.Hour+12*time.Minute+20*time.Second), now, 20*time.Minute, 6*time.Hour, "limit")
	if !strings.Contains(got, "(7h12m from now, after 20m already waited), longer than max_limit_wait (6h): limit") {
		t.Errorf("tooLong = %q", got)
	}
}

// claudeReader is the claude preset, to read a custom command's output as claude's.
func claudeReader(t *testing.T) agentcli.Preset {
	t.Helper()
	p, ok := agentcli.Lookup("claude")
	if !ok {
		t.Fatal("no claude preset")
	}
	return p
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestStopOnOverageWaitsForThePlansWindow: stop_on_overage counts the iteration served
// on overage, stops, and saves the window's reset the agent stated (plus the margin a
// stated reset gets) as the wait the next loop goes on with, so that it does not pay for
// one more iteration on overage each time it starts.
func TestStopOnOverageWaitsForThePlansWindow(t *testing.T) {
	dir := newRepo(t)
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	cfg := config(dir, `echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":`+
		strconv.FormatInt(reset.Unix(), 10)+`,"rateLimitType":"five_hour","isUsingOverage":true}}'
		echo '{"type":"result","is_error":false,"result":"one item done","total_cost_usd":0.01}'`, 5)
	cfg.Agent = claudeReader(t)
	cfg.StopOnOverage = true
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusLimited || res.Iterations != 1 {
		t.Fatalf("status %s after %d iterations, want limited after 1", res.Status, res.Iterations)
	}
	st, err := history.LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := reset.Add(resetMargin); !st.WaitUntil.Equal(want) || !strings.Contains(st.LimitMessage, "stop_on_overage") {
		t.Errorf("saved wait until %v (%q), want %v", st.WaitUntil, st.LimitMessage, want)
	}
}

// TestStopOnOverageLeavesNoWaitPastTheLastIteration: served on overage on the run's last
// iteration, the run ends as max-iters (exit 2), with no wait saved; and a resumed run
// with no iteration left ends at once, not after sitting out a saved wait.
func TestStopOnOverageLeavesNoWaitPastTheLastIteration(t *testing.T) {
	dir := newRepo(t)
	reset := time.Now().Add(time.Hour)
	cfg := config(dir, `echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":`+
		strconv.FormatInt(reset.Unix(), 10)+`,"rateLimitType":"five_hour","isUsingOverage":true}}'
		echo '{"type":"result","is_error":false,"result":"one item done"}'`, 1)
	cfg.Agent = claudeReader(t)
	cfg.StopOnOverage = true
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := history.LoadState(dir); res.Status != StatusMaxIters || !st.WaitUntil.IsZero() {
		t.Errorf("status %s, saved wait %v; want max-iters and none", res.Status, st.WaitUntil)
	}

	// a run stopped on overage at iteration 1 of 2 saves the wait; resumed with --max 1
	// it has nothing left to run
	cfg.MaxIterations, cfg.Fresh = 2, true
	if res, err := Run(context.Background(), cfg, Deps{}); err != nil || res.Status != StatusLimited {
		t.Fatalf("status %s, %v; want limited", res.Status, err)
	}
	cfg.MaxIterations, cfg.Fresh = 1, false
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // the saved wait is hours
	defer cancel()
	res, err = Run(ctx, cfg, Deps{})
	if err != nil || res.Status != StatusMaxIters {
		t.Errorf("resumed with no iteration left: status %s, %v; want max-iters at once", res.Status, err)
	}
}

// TestAttemptMarkIsOneLine: the line the loop writes into the output log between two
// attempts is one line even when the agent's error has several (gemini's quota errors
// do), so that whoever reads the log, or cuts it into attempts, finds where each begins.
func TestAttemptMarkIsOneLine(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `n=$(cat attempts 2>/dev/null || echo 0); echo $((n+1)) > attempts
		if [ "$n" = 0 ]; then
			echo '{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: The model is overloaded.]\\nPlease wait and try again later."}}'
			exit 247
		fi
		echo '{"type":"result","status":"success"}'`, 1)
	gemini, ok := agentcli.Lookup("gemini")
	if !ok {
		t.Fatal("no gemini preset")
	}
	cfg.Agent = gemini
	cfg.BackoffBase, cfg.BackoffMax = 10*time.Millisecond, 50*time.Millisecond
	if _, err := Run(context.Background(), cfg, Deps{}); err != nil {
		t.Fatal(err)
	}
	store, err := history.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	log := readFile(t, filepath.Dir(store.OutputPath(1)), filepath.Base(store.OutputPath(1)))
	want := "\n[git-ralph: attempt 1: transient: [API Error: The model is overloaded.] / Please wait and try again later.; retrying at "
	if !strings.Contains(log, want) {
		t.Errorf("output log:\n%s\nwant a one-line attempt mark %q", log, want)
	}
}

// An iteration served on overage whose promise command passes is done, as one whose
// agent said SUCCESS is: the work asked for is there, and stopping as limited would make
// the next loop resume the run and pay for another iteration it does not need.
func TestAPromiseKeptOnOverageIsDone(t *testing.T) {
	dir := newRepo(t)
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	cfg := config(dir, `echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":`+
		strconv.FormatInt(reset.Unix(), 10)+`,"rateLimitType":"five_hour","isUsingOverage":true}}'
		echo '{"type":"result","is_error":false,"result":"the last item done","total_cost_usd":0.01}'`, 5)
	cfg.Agent = claudeReader(t)
	cfg.StopOnOverage = true
	cfg.Until = afterAnIteration("true")
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusSuccess || res.Cause != CauseUntil || res.Iterations != 1 {
		t.Errorf("status %s (cause %q) after %d iterations, want success by the promise after 1", res.Status, res.Cause, res.Iterations)
	}
}
