package idle

import (
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

func TestWatchFinished(t *testing.T) {
	same := Iteration{Before: gitops.Checkpoint{Head: "aaa", Tree: "111"}, After: gitops.Checkpoint{Head: "aaa", Tree: "111"}}
	moved := Iteration{Before: gitops.Checkpoint{Head: "aaa", Tree: "111"}, After: gitops.Checkpoint{Head: "bbb", Tree: "111"}}
	with := func(it Iteration, e Ending) Iteration { it.Ending = e; return it }
	tests := []struct {
		name  string
		idle  int // idle iterations before
		it    Iteration
		want  Observation
		after int // idle iterations after
	}{
		{"success that changed nothing is idle", 0, with(same, Succeeded), Observation{}, 1},
		{"success that changed nothing reaches the threshold", 1, with(same, Succeeded), Observation{Stop: true}, 2},
		{"success that changed something resets", 1, with(moved, Succeeded), Observation{Progress: true}, 0},
		{"failure that changed nothing is the breaker's, count kept", 1, with(same, Failed), Observation{}, 1},
		{"failure that changed something is progress", 1, with(moved, Failed), Observation{Progress: true}, 0},
		{"uncounted that changed nothing is not counted", 1, with(same, Uncounted), Observation{}, 1},
		{"uncounted that changed something is reported, not counted", 1, with(moved, Uncounted), Observation{Progress: true}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := Watch{Counter: Counter{Threshold: 2, Idle: tt.idle}}
			if got := w.Finished(tt.it); got != tt.want {
				t.Errorf("Finished(%+v) = %+v, want %+v", tt.it, got, tt.want)
			}
			if w.Idle != tt.after {
				t.Errorf("Idle = %d, want %d", w.Idle, tt.after)
			}
		})
	}
}

// The watch hands each iteration to the stagnation check along with the idle counter, so
// one observation carries both.
func TestWatchFinishedWeighsStagnation(t *testing.T) {
	w := Watch{Counter: Counter{Threshold: 2}, Stagnation: Stagnation{Threshold: 2, Similarity: 90}}
	it := func(before, after string) Iteration {
		return Iteration{Before: gitops.Checkpoint{Tree: before}, After: gitops.Checkpoint{Tree: after},
			Message: "Fixed the parser.", Failure: "failed: exit code 1\n--- FAIL: TestParse\n"}
	}
	if v := w.Finished(it("t0", "a")); v.Repetition.Repeats != 1 || v.Repetition.Nudge {
		t.Errorf("first iteration: %+v", v.Repetition)
	}
	v := w.Finished(it("a", "b"))
	if !v.Progress || v.Stop || !v.Repetition.Nudge || v.Repetition.Failure != 100 {
		t.Errorf("second iteration: %+v, want progress and a nudge for the same failure", v)
	}
}
