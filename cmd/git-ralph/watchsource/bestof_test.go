package watchsource

import (
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// The fleet view lists a ranked group's candidates together, after the other loops, in
// rank order, the winner marked, mergeable unless running or in the merge queue; a group
// not ranked keeps its candidates' order and offers none.
func TestGroupRunsForTheFleetView(t *testing.T) {
	runs := []status.Run{{Name: "main"}, {Name: "try-1", BaseBranch: "main"}, {Name: "try-2", BaseBranch: "main"},
		{Name: "try-3", State: history.MergeMerged}, {Name: "solo"}, {Name: "wip-2", PID: 7}, {Name: "wip-1", PID: 8}}
	ran := func(name string) fleet.Figures { return fleet.Figures{Name: name, Iterations: 1} }
	groups := []fleet.Ranking{
		{Name: "try", Candidates: []string{"try-1", "try-2", "try-3"}, RankedAt: time.Now(),
			Ranked: []fleet.Figures{ran("try-3"), ran("try-2"), {Name: "try-1"}}},
		{Name: "wip", Candidates: []string{"wip-1", "wip-2"}},
		{Name: "pruned", Candidates: []string{"pruned-1"}}, // its candidates all gone: not shown
	}
	ordered, cands, notes := groupRuns(runs, groups)
	var names []string
	for _, r := range ordered {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, " "); got != "main solo try-3 try-2 try-1 wip-1 wip-2" {
		t.Errorf("order %s", got)
	}
	if c := cands["try-3"]; c.Rank != 1 || !c.Winner || c.Mergeable {
		t.Errorf("try-3 (merged, the winner): %+v", c)
	}
	if c := cands["try-2"]; c.Rank != 2 || c.Winner || !c.Mergeable || c.Base != "main" {
		t.Errorf("try-2: %+v", c)
	}
	if c := cands["try-1"]; c.Mergeable {
		t.Errorf("try-1 never ran an iteration, yet mergeable: %+v", c)
	}
	if c := cands["wip-1"]; c.Rank != 0 || c.Mergeable || c.Group != "wip" {
		t.Errorf("wip-1: %+v", c)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "winner ★ try-3") || !strings.Contains(notes[1], "ranking when all have ended") {
		t.Errorf("notes %q", notes)
	}
}
