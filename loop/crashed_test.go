package loop

import (
	"context"
	"testing"

	"github.com/git-ralph/git-ralph/history"
)

// TestResumeAfterARecordedButUnsavedIteration is a loop killed between writing
// iteration 2's record and saving the state that says iteration 2 is over: the next loop
// goes on with step 3, instead of running step 2 again (twice the work, twice in history).
func TestResumeAfterARecordedButUnsavedIteration(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, "true", 2)
	if _, err := Run(context.Background(), cfg, Deps{}); err != nil {
		t.Fatal(err)
	}
	st, err := history.LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Active, st.StopReason, st.ExitCode, st.Iteration = true, "", 0, 1 // as saved after step 1
	if err := history.SaveState(dir, st); err != nil {
		t.Fatal(err)
	}

	cfg.MaxIterations = 3
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run != st.Run || res.Iterations != 1 || res.Last != 3 {
		t.Errorf("resumed run %s ran %d iterations up to step %d, want run %s, 1 iteration, step 3",
			res.Run, res.Iterations, res.Last, st.Run)
	}
	store, err := history.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := store.List(0)
	if err != nil {
		t.Fatal(err)
	}
	var steps []int
	for _, r := range recs {
		steps = append(steps, r.RunIteration)
	}
	if len(steps) != 3 || steps[0] != 1 || steps[1] != 2 || steps[2] != 3 {
		t.Errorf("history holds steps %v, want [1 2 3]", steps)
	}
}
