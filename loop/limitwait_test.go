package loop

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// fakeClock moves only when the loop waits on it (Deps.Now, Deps.After): a wait of hours
// passes at once, and the test sees exactly how long the loop meant to sleep.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	fired := make(chan time.Time, 1)
	fired <- c.now
	return fired
}

// A limit whose reset the agent states hours ahead, within max_limit_wait, is waited out
// to the reset and its margin, and the same iteration runs again: the record says how long
// it waited, the state keeps no wait afterwards.
func TestALimitIsWaitedOutToItsStatedReset(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `n=$(cat attempts 2>/dev/null || echo 0); echo $((n+1)) > attempts
		if [ "$n" = 0 ]; then echo "You've hit your usage limit. Upgrade to Pro or try again in 3 hours." >&2; exit 1; fi`, 1)
	cfg.MaxLimitWait = 4 * time.Hour
	clock := &fakeClock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	start := clock.Now()
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec, Now: clock.Now, After: clock.After})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusMaxIters || res.Iterations != 1 || res.Consecutive != 0 {
		t.Fatalf("status %s, %d iterations, %d consecutive errors; want max-iters after 1 clean iteration", res.Status, res.Iterations, res.Consecutive)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "attempts")); string(got) != "2\n" {
		t.Errorf("attempts = %q, want the agent run twice", got)
	}
	wantWait := 3*time.Hour + resetMargin
	var waits []Waiting
	for _, e := range rec.events {
		if w, ok := e.(Waiting); ok {
			waits = append(waits, w)
		}
	}
	if len(waits) != 1 || waits[0].Kind != "limit" || !waits[0].Until.Equal(start.Add(wantWait)) {
		t.Fatalf("Waiting events = %+v, want one limit wait until %v", waits, start.Add(wantWait))
	}
	if len(clock.slept) != 1 || clock.slept[0] != wantWait {
		t.Errorf("the loop slept %v, want one sleep of %v", clock.slept, wantWait)
	}
	if f := rec.finished()[0]; f.Record.RateLimitWaits != 1 || f.Record.WaitedMS != wantWait.Milliseconds() {
		t.Errorf("record: %d limit waits, waited %d ms; want 1 and %d ms", f.Record.RateLimitWaits, f.Record.WaitedMS, wantWait.Milliseconds())
	}
	if st, _ := history.LoadState(dir); !st.WaitUntil.IsZero() {
		t.Errorf("wait_until left in the state after the wait: %v", st.WaitUntil)
	}
}

// A limit's wait that an earlier loop saved is waited out by the next loop to its saved
// end, within max_limit_wait, before the first iteration: the time left, not the whole wait.
func TestASavedWaitIsWaitedOutToItsEnd(t *testing.T) {
	dir := newRepo(t)
	clock := &fakeClock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	until := clock.Now().Add(50 * time.Minute)
	if err := history.SaveState(dir, history.State{Run: "r", Mode: "build", Active: true, Iteration: 1,
		WaitUntil: until, LimitMessage: "Rate limit exceeded"}); err != nil {
		t.Fatal(err)
	}
	cfg := config(dir, "touch ran", 2)
	cfg.MaxLimitWait = time.Hour
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec, Now: clock.Now, After: clock.After})
	if err != nil {
		t.Fatal(err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "ran")); res.Status != StatusMaxIters || res.Last != 2 || statErr != nil {
		t.Fatalf("status %s after iteration %d, agent ran: %v; want the saved wait, then iteration 2", res.Status, res.Last, statErr == nil)
	}
	if w, ok := rec.events[1].(Waiting); !ok || !w.Resumed || !w.Until.Equal(until) || w.Message != "Rate limit exceeded" {
		t.Errorf("second event = %#v, want the resumed wait until %v", rec.events[1], until)
	}
	if len(clock.slept) != 1 || clock.slept[0] != 50*time.Minute {
		t.Errorf("the loop slept %v, want one sleep of 50m", clock.slept)
	}
}
