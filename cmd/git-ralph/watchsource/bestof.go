package watchsource

import (
	"context"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/watch"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// FleetLoopsOf is runs as the fleet view lists them, with the best-of groups' candidates
// together after the other loops, in rank order once ranked (their kept ranking), each
// marked, and a line per group above the list.
func FleetLoopsOf(ctx context.Context, here string, runs []status.Run) (watch.Loops, error) {
	groups, bad, err := fleet.Rankings(ctx, here)
	if err != nil {
		bad = append(bad, err)
	}
	ordered, cands, notes := groupRuns(runs, groups)
	loops, err := FleetLoops(ordered)
	if err != nil {
		return loops, err
	}
	for _, e := range bad {
		notes = append(notes, "warning: "+display.OneLine(e.Error()))
	}
	loops.Candidates, loops.Notes = cands, notes
	return loops, nil
}

// groupRuns orders runs for the list: the loops of no best-of first, as they came, then
// each group's candidates (rank order, else candidate order), with their marks and the
// groups' lines.
func groupRuns(runs []status.Run, groups []fleet.Ranking) ([]status.Run, map[string]watch.Candidate, []string) {
	byName := map[string]status.Run{}
	for _, r := range runs {
		byName[r.Name] = r
	}
	cands := map[string]watch.Candidate{}
	var tail []status.Run
	var notes []string
	for _, g := range groups {
		order := g.Candidates
		winner, won := g.Winner()
		if g.IsRanked() {
			order = nil
			for _, f := range g.Ranked {
				order = append(order, f.Name)
			}
		}
		for i, name := range order {
			r, ok := byName[name]
			if !ok || cands[name].Group != "" {
				continue
			}
			c := watch.Candidate{Group: g.Name, Base: r.BaseBranch}
			if g.IsRanked() {
				c.Rank, c.Winner = i+1, won && name == winner.Name
				c.Mergeable = fleet.Mergeable(g.Ranked[i], r.PID, r.State) == nil
			}
			cands[name] = c
			tail = append(tail, r)
		}
		if anyCandidate(cands, g.Name) {
			notes = append(notes, groupNote(g, winner, won))
		} // else its candidates are all pruned: the group is gone with them
	}
	var out []status.Run
	for _, r := range runs {
		if _, ok := cands[r.Name]; !ok {
			out = append(out, r)
		}
	}
	return append(out, tail...), cands, notes
}

// groupNote is a best-of's line above the list.
func groupNote(g fleet.Ranking, winner fleet.Figures, won bool) string {
	switch {
	case !g.IsRanked():
		return fmt.Sprintf("best-of %s: %d candidates; ranking when all have ended", g.Name, len(g.Candidates))
	case !won:
		return fmt.Sprintf("best-of %s: ranked %s; no candidate ran an iteration", g.Name, rankedAt(g.RankedAt))
	}
	return fmt.Sprintf("best-of %s: ranked %s, winner ★ %s (validation %s)",
		g.Name, rankedAt(g.RankedAt), winner.Name, display.Printable(winner.Validation.Text()))
}

// rankedAt is when a ranking was made, short: the time today, else the day and time.
func rankedAt(t time.Time) string {
	t = t.Local()
	if y, m, d := t.Date(); y == time.Now().Year() && m == time.Now().Month() && d == time.Now().Day() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

// anyCandidate reports whether a loop of the list is a candidate of the group.
func anyCandidate(cands map[string]watch.Candidate, group string) bool {
	for _, c := range cands {
		if c.Group == group {
			return true
		}
	}
	return false
}
