package loop

import (
	"context"
	"testing"
	"time"
)

// The timing a resumed run reports covers the iterations it completed before it was
// stopped, as its count does: the first run's slow iteration is the resumed run's max.
func TestAResumedRunsTimingCoversItsEarlierIterations(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `if [ "$RALPH_ITERATION" = 1 ]; then sleep 0.4; fi`, 3)
	cfg.IdleThreshold = 0
	finish := make(chan struct{})
	started := 0
	cancelAtSecond := reporterFunc(func(e Event) {
		if _, ok := e.(IterationStarted); ok {
			if started++; started == 2 {
				close(finish) // 'git ralph cancel' during iteration 2: the run stops after it
			}
		}
	})
	first, err := Run(context.Background(), cfg, Deps{Reporter: cancelAtSecond, Finish: finish})
	if err != nil || first.Status != StatusInterrupted || first.Stats.Count != 2 {
		t.Fatalf("first run: status %s, %d timed (%v); want interrupted after 2", first.Status, first.Stats.Count, err)
	}
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusMaxIters || res.Iterations != 1 {
		t.Fatalf("resumed run: status %s after %d iterations, want max-iters after 1", res.Status, res.Iterations)
	}
	if res.Stats.Count != 3 || res.Stats.Max < 400*time.Millisecond || res.Stats.Max != first.Stats.Max.Truncate(time.Millisecond) { // records keep milliseconds
		t.Errorf("resumed run's timing: count %d, max %s; want 3 iterations with the first run's max %s",
			res.Stats.Count, res.Stats.Max, first.Stats.Max)
	}
}
