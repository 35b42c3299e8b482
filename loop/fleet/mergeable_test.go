package fleet

import (
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/history"
)

// The one answer both views and the pick give: a ranked candidate may be merged when it
// ran, has ended and the merge queue has not got it.
func TestMergeable(t *testing.T) {
	ran := Figures{Name: "b-1", Iterations: 2}
	for _, c := range []struct {
		f     Figures
		pid   int
		state string
		want  string // "": mergeable
	}{
		{ran, 0, "finished", ""},
		{ran, 0, history.MergeNeedsReview, ""},
		{Figures{Name: "b-1"}, 0, "finished", "ran no iteration"},
		{ran, 4242, "running", "is running (pid 4242)"},
		{ran, 0, history.MergeQueued, "already merging b-1 (queued)"},
		{ran, 0, history.MergeMerging, "already merging b-1 (merging)"},
		{ran, 0, history.MergeMerged, "already merged"},
	} {
		err := Mergeable(c.f, c.pid, c.state)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v, %d, %s: %v, want mergeable", c.f, c.pid, c.state, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v, %d, %s: %v, want %q", c.f, c.pid, c.state, err, c.want)
		case err != nil && err.(*Error).Hint() == "":
			t.Errorf("%v: no hint", err)
		}
	}
}
