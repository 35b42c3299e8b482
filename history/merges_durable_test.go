package history

import "testing"

// Only the records whose loss a power cut could turn into harm are flushed: the landing
// record (before the base moves) and a needs-review outcome; the others cost no fsync.
func TestDurableMergeRecords(t *testing.T) {
	for _, tt := range []struct {
		m    Merge
		want bool
	}{
		{Merge{State: MergeQueued}, false},
		{Merge{State: MergeMerging, Phase: PhaseBuilding}, false},
		{Merge{State: MergeMerging, Phase: PhaseValidating}, false},
		{Merge{State: MergeMerging, Phase: PhaseValidating, Validator: 42}, false},
		{Merge{State: MergeMerging, Phase: PhaseLanding}, true},
		{Merge{State: MergeMerging, Phase: PhaseUpdating}, false},
		{Merge{State: MergeMerged}, false},
		{Merge{State: MergeNeedsReview, Problem: "conflict"}, true},
	} {
		if got := durableMerge(tt.m); got != tt.want {
			t.Errorf("durableMerge(%s/%s) = %v, want %v", tt.m.State, tt.m.Phase, got, tt.want)
		}
	}
}
