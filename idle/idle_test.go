package idle

import (
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

func TestProgress(t *testing.T) {
	base := gitops.Checkpoint{Head: "aaa", Tree: "111"}
	tests := []struct {
		name          string
		before, after gitops.Checkpoint
		want          bool
	}{
		{"nothing changed", base, base, false},
		{"HEAD moved, tree same (earlier edits committed)", base, gitops.Checkpoint{Head: "bbb", Tree: "111"}, true},
		{"tree changed, HEAD same (uncommitted edits)", base, gitops.Checkpoint{Head: "aaa", Tree: "222"}, true},
		{"both changed", base, gitops.Checkpoint{Head: "bbb", Tree: "222"}, true},
		{"first commit on an unborn branch", gitops.Checkpoint{Tree: "111"}, base, true},
		{"unborn and untouched", gitops.Checkpoint{Tree: "111"}, gitops.Checkpoint{Tree: "111"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Progress(tt.before, tt.after); got != tt.want {
				t.Errorf("Progress(%+v, %+v) = %v, want %v", tt.before, tt.after, got, tt.want)
			}
		})
	}
}

func TestCounter(t *testing.T) {
	tests := []struct {
		name      string
		threshold int
		progress  []bool
		stops     []bool // what Observe returns for each entry of progress
		idle      int    // Idle at the end
	}{
		{"threshold 3 stops on the third idle in a row", 3,
			[]bool{false, false, false}, []bool{false, false, true}, 3},
		{"progress resets the count", 3,
			[]bool{false, false, true, false, false, false}, []bool{false, false, false, false, false, true}, 3},
		{"progress after stopping resets", 2,
			[]bool{false, false, true}, []bool{false, true, false}, 0},
		{"keeps saying stop while idle", 1,
			[]bool{false, false}, []bool{true, true}, 2},
		{"threshold 0 never stops", 0,
			[]bool{false, false, false, false, false}, []bool{false, false, false, false, false}, 5},
		{"all progress", 2,
			[]bool{true, true, true}, []bool{false, false, false}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Counter{Threshold: tt.threshold}
			for i, p := range tt.progress {
				if got := c.Observe(p); got != tt.stops[i] {
					t.Errorf("Observe #%d (progress=%v) = %v, want %v", i+1, p, got, tt.stops[i])
				}
			}
			if c.Idle != tt.idle {
				t.Errorf("Idle = %d, want %d", c.Idle, tt.idle)
			}
		})
	}
}
