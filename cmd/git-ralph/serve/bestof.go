package serve

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// BestOfs is the part of a Source that knows the best-of groups (`loop --best-of N`) and
// merges the candidate a person picked; without it the candidates are cards as any loop.
type BestOfs interface {
	// BestOfs are the groups' kept rankings, by name, and the files that could not be read.
	BestOfs(ctx context.Context) ([]fleet.Ranking, []error, error)
	// PickMerge starts the merge of the group's candidate through the merge queue, as
	// `git ralph merge CANDIDATE` does (validated; nothing unvalidated lands), without
	// waiting for it, and says so; its error refuses (no such candidate, not ended, another
	// merge under way). ErrNotFound: no such group.
	PickMerge(ctx context.Context, group, candidate string) (said string, err error)
	// Picked is what became of the merges started here, by candidate.
	Picked() map[string]PickedMerge
}

// PickedMerge is a merge started from the dashboard (or watch): its process and its log.
type PickedMerge struct {
	Running bool
	Exit    int    // its exit code once ended (0 merged; 8 and 9: needs review)
	Log     string // where its output goes, relative to the repository when it is inside
	Started time.Time
}

// bestOfSection is one best-of group on the overview.
type bestOfSection struct {
	Name     string
	Ranked   bool
	RankedAt string // "Nov 28 21:03", the server's local time
	Score    string // the score command, "" none
	Rows     []bestOfRow
	Flash    flash
	CSRF     string // the buttons' forms
}

// bestOfRow is one candidate of a group: its figures as the ranking kept them (ranked
// groups), its card as the loop is now, and whether it can be merged from here.
type bestOfRow struct {
	Rank                             int // 1 the best; 0 while the group is not ranked
	Winner                           bool
	Name                             string
	Stopped, Validation, Score, Diff string
	ValidationTone                   string
	Iterations                       int
	Problem, ScoreProblem            string
	Card                             *loopCard // nil: no such loop any more
	Mergeable                        bool
	Base                             string // the branch a merge lands on
	Picked                           *PickedMerge
}

// bestOfSections takes the candidates of every best-of group out of cards and returns
// them as sections, each in rank order once ranked (else in candidate order, with their
// live state), with the cards left, and what became of the merges picked here; problems
// are the kept rankings that cannot be read.
func (s *Server) bestOfSections(ctx context.Context, cards []loopCard, picked map[string]PickedMerge) (sections []bestOfSection, rest []loopCard, problems []string) {
	src, ok := s.src.(BestOfs)
	if !ok {
		return nil, cards, nil
	}
	groups, bad, err := src.BestOfs(ctx)
	for _, e := range bad {
		problems = append(problems, display.Printable(e.Error()))
	}
	if err != nil {
		return nil, cards, append(problems, display.Printable(err.Error()))
	}
	byName := map[string]*loopCard{}
	for i := range cards {
		byName[cards[i].Name] = &cards[i]
	}
	taken := map[string]bool{}
	for _, g := range groups {
		if !anyListed(g, byName) { // its candidates all pruned: the group is gone with them
			continue
		}
		sec := s.sectionOf(g, byName)
		for i := range sec.Rows {
			r := &sec.Rows[i]
			taken[r.Name] = true
			if p, ok := picked[r.Name]; ok {
				r.Picked = &p
			}
			if r.Card != nil {
				r.Base = r.Card.BaseBranch
			}
		}
		sections = append(sections, sec)
	}
	for _, c := range cards {
		if !taken[c.Name] {
			rest = append(rest, c)
		}
	}
	return sections, rest, problems
}

// sectionOf is the group's section: its candidates' rows in rank order once ranked, else
// in candidate order with their cards (byName: the loops' cards by name).
func (s *Server) sectionOf(g fleet.Ranking, byName map[string]*loopCard) bestOfSection {
	sec := bestOfSection{Name: g.Name, Ranked: g.IsRanked(), Score: g.Score, Flash: s.flashes.take(groupKey(g.Name)), CSRF: s.csrf}
	if !sec.Ranked {
		for _, name := range g.Candidates {
			sec.Rows = append(sec.Rows, bestOfRow{Name: name, Card: byName[name]})
		}
		return sec
	}
	sec.RankedAt = g.RankedAt.Local().Format("Jan 2 15:04")
	winner, won := g.Winner()
	for i, f := range g.Ranked {
		row := rowOf(f, g.Score != "", byName[f.Name])
		row.Rank, row.Winner = i+1, won && f.Name == winner.Name
		row.Mergeable = row.Card != nil && fleet.Mergeable(f, row.Card.PID, row.Card.State) == nil
		sec.Rows = append(sec.Rows, row)
	}
	return sec
}

// rowOf is a ranked candidate's row: the ranking's own texts (fleet's, as the terminal
// shows them) and the loop's card as it is now.
func rowOf(f fleet.Figures, scored bool, card *loopCard) bestOfRow {
	row := bestOfRow{Name: f.Name, Stopped: f.StoppedText(), Validation: f.Validation.Text(), Score: f.ScoreText(scored),
		Diff: f.DiffText(), Iterations: f.Iterations, Problem: f.Problem, ScoreProblem: f.ScoreProblem, Card: card}
	switch f.Validation.Result {
	case fleet.ValidationPassed:
		row.ValidationTone = "ok"
	case fleet.ValidationFailed:
		row.ValidationTone = "fail"
	}
	return row
}

// groupKey is the key of a group's message among the loops' (flashes).
func groupKey(group string) string { return "bestof\x00" + group }

// pickMerge is the "Merge this one" button (behind sameOrigin): it starts the merge of the
// candidate, or says why not, and goes back to the overview's section of the group (303),
// which says it.
func (s *Server) pickMerge(w http.ResponseWriter, r *http.Request) {
	src, ok := s.src.(BestOfs)
	if !ok {
		http.Error(w, "404: this dashboard cannot merge", http.StatusNotFound)
		return
	}
	group, candidate := r.PathValue("group"), strings.TrimSpace(r.PostFormValue("candidate"))
	said, err := src.PickMerge(r.Context(), group, candidate)
	if errors.Is(err, ErrNotFound) {
		fail(w, err)
		return
	}
	f := flash{Said: said}
	if err != nil {
		f = flash{Said: strings.TrimSpace(said + " error: " + err.Error()), Failed: true}
	}
	f.Said = display.PrintableText(f.Said)
	s.flashes.put(groupKey(group), f)
	http.Redirect(w, r, "/#"+bestOfAnchor(group), http.StatusSeeOther)
}

// bestOfAnchor is the id of a group's section on the overview.
func bestOfAnchor(group string) string { return "bestof-" + url.PathEscape(group) }

// anyListed reports whether one of the group's candidates is among the loops.
func anyListed(g fleet.Ranking, loops map[string]*loopCard) bool {
	for _, c := range g.Candidates {
		if loops[c] != nil {
			return true
		}
	}
	return false
}
