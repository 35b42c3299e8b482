package loop

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// pauseWatch records the events of a run in another goroutine and tells when it pauses.
type pauseWatch struct {
	mu     sync.Mutex
	events []Event
	paused chan Paused
}

func newPauseWatch() *pauseWatch { return &pauseWatch{paused: make(chan Paused, 4)} }

func (w *pauseWatch) Report(e Event) {
	w.mu.Lock()
	w.events = append(w.events, e)
	w.mu.Unlock()
	if p, ok := e.(Paused); ok {
		w.paused <- p
	}
}

// names are the kinds of the events so far, in order, the per-iteration ones numbered.
func (w *pauseWatch) names() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, e := range w.events {
		switch e := e.(type) {
		case IterationFinished:
			out = append(out, "finished "+strconv.Itoa(e.Iteration))
		case Paused:
			out = append(out, "paused "+strconv.Itoa(e.Iteration))
		case Resumed:
			out = append(out, "resumed "+strconv.Itoa(e.Iteration))
		case Waiting:
			out = append(out, "waiting")
		}
	}
	return strings.Join(out, ", ")
}

type runOutcome struct {
	res Result
	err error
}

// runPausable runs cfg in the background with a pause file next to the repository.
func runPausable(ctx context.Context, cfg Config, deps Deps) <-chan runOutcome {
	done := make(chan runOutcome, 1)
	go func() {
		res, err := Run(ctx, cfg, deps)
		done <- runOutcome{res, err}
	}()
	return done
}

func waitPaused(t *testing.T, w *pauseWatch) Paused {
	t.Helper()
	select {
	case p := <-w.paused:
		return p
	case <-time.After(time.Minute):
		t.Fatalf("the loop never paused; events: %s", w.names())
	}
	return Paused{}
}

func lines(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// TestPauseAsked during an iteration lets the iteration end and be recorded, then starts
// no agent until the request is taken back, then goes on to the end.
func TestPauseAskedDuringAnIterationHoldsTheNextAgent(t *testing.T) {
	dir := newRepo(t)
	pause := filepath.Join(t.TempDir(), history.PauseFile)
	// the first iteration's agent asks for the pause while it works, as `git ralph pause` would
	cfg := config(dir, `echo "$RALPH_ITERATION" >> runs; [ "$RALPH_ITERATION" = 1 ] && echo "paused_at = 2026-01-02T03:04:05Z" > `+pause+`; true`, 2)
	cfg.PauseFile = pause
	w := newPauseWatch()
	done := runPausable(context.Background(), cfg, Deps{Reporter: w, PausePoll: 20 * time.Millisecond})
	p := waitPaused(t, w)
	if p.Iteration != 2 || p.Retry || !p.Asked.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("Paused = %+v, want before iteration 2, asked at 03:04:05", p)
	}
	time.Sleep(time.Second) // fifty polls: no agent may start meanwhile
	if n := lines(t, filepath.Join(dir, "runs")); n != 1 {
		t.Fatalf("%d agents started, want 1 while paused", n)
	}
	if st, _ := history.LoadState(dir); st.PausedAt.IsZero() || st.Iteration != 1 || !st.Active {
		t.Errorf("state while paused: paused_at %v, iteration %d, active %v", st.PausedAt, st.Iteration, st.Active)
	}
	if _, err := history.ClearPause(pause); err != nil {
		t.Fatal(err)
	}
	out := <-done
	if out.err != nil || out.res.Status != StatusMaxIters || out.res.Iterations != 2 {
		t.Fatalf("Run = %+v, %v; want max-iters after 2", out.res, out.err)
	}
	if got, want := w.names(), "finished 1, paused 2, resumed 2, finished 2"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if st, _ := history.LoadState(dir); !st.PausedAt.IsZero() {
		t.Errorf("paused_at %v left in the state after the run", st.PausedAt)
	}
}

// TestCancelAndInterruptEndAPause: `git ralph cancel` and Ctrl+C end a paused loop as
// interrupted (exit 130) without starting the agent, and the request stays for the next loop.
func TestCancelAndInterruptEndAPause(t *testing.T) {
	for _, how := range []string{"cancel", "interrupt"} {
		t.Run(how, func(t *testing.T) {
			dir := newRepo(t)
			pause := filepath.Join(t.TempDir(), history.PauseFile)
			if _, _, err := history.RequestPause(pause, time.Now()); err != nil {
				t.Fatal(err)
			}
			cfg := config(dir, `echo ran >> runs`, 3)
			cfg.PauseFile = pause
			ctx, interrupt := context.WithCancel(context.Background())
			defer interrupt()
			finish := make(chan struct{})
			w := newPauseWatch()
			done := runPausable(ctx, cfg, Deps{Reporter: w, Finish: finish, PausePoll: 20 * time.Millisecond})
			waitPaused(t, w)
			if how == "cancel" {
				close(finish)
			} else {
				interrupt()
			}
			out := <-done
			if out.err != nil || out.res.Status != StatusInterrupted || out.res.Status.ExitCode() != 130 || out.res.Cancelled != (how == "cancel") {
				t.Fatalf("Run = %+v, %v; want interrupted, cancelled %v", out.res, out.err, how == "cancel")
			}
			if n := lines(t, filepath.Join(dir, "runs")); n != 0 {
				t.Errorf("%d agents started while paused", n)
			}
			if _, asked, _ := history.ReadPause(pause); !asked {
				t.Errorf("the pause request is gone: the next loop would not start paused")
			}
			if st, _ := history.LoadState(dir); !st.PausedAt.IsZero() || st.StopReason != history.StopInterrupted {
				t.Errorf("state after: paused_at %v, stop reason %q", st.PausedAt, st.StopReason)
			}
		})
	}
}

// TestPauseDuringALimitWait: the wait goes on to its end, then the loop stays paused
// rather than starting the agent.
func TestPauseDuringALimitWait(t *testing.T) {
	store := &history.Limits{Dir: filepath.Join(t.TempDir(), "limits")}
	until := time.Now().Add(time.Second)
	store.Share(history.SharedLimit{Agent: "claude", Until: until, Message: "limit", From: "/elsewhere"})
	dir := newRepo(t)
	pause := filepath.Join(t.TempDir(), history.PauseFile)
	if _, _, err := history.RequestPause(pause, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := config(dir, `echo ran >> runs`, 1)
	cfg.Agent = claudeReader(t)
	cfg.Limits, cfg.LimitFrom, cfg.PauseFile = store, dir, pause
	w := newPauseWatch()
	done := runPausable(context.Background(), cfg, Deps{Reporter: w, PausePoll: 20 * time.Millisecond})
	p := waitPaused(t, w)
	if p.At.Before(until) {
		t.Errorf("paused at %v, before the limit's end %v: the wait did not go on", p.At, until)
	}
	if st, _ := history.LoadState(dir); !st.WaitUntil.IsZero() || st.PausedAt.IsZero() {
		t.Errorf("state while paused after the wait: wait_until %v, paused_at %v", st.WaitUntil, st.PausedAt)
	}
	time.Sleep(500 * time.Millisecond)
	if n := lines(t, filepath.Join(dir, "runs")); n != 0 {
		t.Fatalf("the agent started while paused")
	}
	history.ClearPause(pause)
	if out := <-done; out.err != nil || out.res.Iterations != 1 {
		t.Fatalf("Run = %+v, %v", out.res, out.err)
	}
	if got, want := w.names(), "waiting, paused 1, resumed 1, finished 1"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestResumeAfterAKillMidIterationIsNotInIteration: a loop killed with -9 while its agent
// ran left in_iteration = true. The loop that resumes the run and is paused before its
// first agent is not in an iteration: the pre-push hook must not refuse pushes meanwhile,
// and the pause is not one before a retry.
func TestResumeAfterAKillMidIterationIsNotInIteration(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo ran >> runs`, 1)
	if _, err := Run(context.Background(), cfg, Deps{}); err != nil {
		t.Fatal(err)
	}
	st, err := history.LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Active, st.StopReason, st.ExitCode, st.InIteration = true, "", 0, true // as saved before step 2's agent
	if err := history.SaveState(dir, st); err != nil {
		t.Fatal(err)
	}
	pause := filepath.Join(t.TempDir(), history.PauseFile)
	if _, _, err := history.RequestPause(pause, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg.MaxIterations, cfg.PauseFile = 2, pause
	w := newPauseWatch()
	done := runPausable(context.Background(), cfg, Deps{Reporter: w, PausePoll: 20 * time.Millisecond})
	if p := waitPaused(t, w); p.Retry || p.Iteration != 2 {
		t.Errorf("Paused = %+v, want before iteration 2, not a retry", p)
	}
	if st, _ := history.LoadState(dir); st.InIteration {
		t.Errorf("state while paused before the resumed run's first agent: in_iteration %v", st.InIteration)
	}
	history.ClearPause(pause)
	if out := <-done; out.err != nil || out.res.Status != StatusMaxIters || out.res.Iterations != 1 {
		t.Fatalf("Run = %+v, %v; want max-iters after 1 more", out.res, out.err)
	}
}

// TestDailyBudgetSpentDuringAPause: other loops may spend the day's budget while this one
// is paused (or waits out a limit); the agent does not start after the resume when the
// budget can no longer cover it.
func TestDailyBudgetSpentDuringAPause(t *testing.T) {
	dir := newRepo(t)
	store := history.Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	pause := filepath.Join(t.TempDir(), history.PauseFile)
	if _, _, err := history.RequestPause(pause, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := config(dir, `echo ran >> runs`, 3)
	cfg.PauseFile, cfg.Budget = pause, Budget{DailyMaxCost: 1, Daily: &store}
	w := newPauseWatch()
	done := runPausable(context.Background(), cfg, Deps{Reporter: w, PausePoll: 20 * time.Millisecond})
	waitPaused(t, w)
	if _, err := store.Add(time.Now(), 1.5, 0); err != nil { // another loop's agent, meanwhile
		t.Fatal(err)
	}
	history.ClearPause(pause)
	out := <-done
	if out.err != nil || out.res.Status != StatusBudget || out.res.Cause != "daily_max_cost" {
		t.Errorf("Run = %s (%s), %v; want budget (daily_max_cost)", out.res.Status, out.res.Cause, out.err)
	}
	if n := lines(t, filepath.Join(dir, "runs")); n != 0 {
		t.Errorf("%d agents started after the day's budget was spent", n)
	}
}
