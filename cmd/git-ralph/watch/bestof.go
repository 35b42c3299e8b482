package watch

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Candidate is a loop of the list that is a candidate of a best-of (`loop --best-of N`):
// the list shows its rank, marks the winner, and m merges it once the best-of ranked it.
type Candidate struct {
	Group string // the best-of's name
	Base  string // the branch a merge lands on
	// Rank is its place in the kept ranking, 1 the best; 0 while the group is not ranked.
	Rank      int
	Winner    bool
	Mergeable bool // ranked, its run over, not merged nor being merged
}

// rankColumn is the width of the list's rank column when it has candidates.
const rankColumn = 5

// mark is the candidate's rank column: "★ 1" on the winner, " 2", "…" before the ranking.
func (c Candidate) mark() string {
	switch {
	case c.Rank == 0:
		return "   … "
	case c.Winner:
		return fmt.Sprintf("★%3d ", c.Rank)
	}
	return fmt.Sprintf("%4d ", c.Rank)
}

// pickedMsg is what the merge picked with m said: it started (said), or why not (err).
type pickedMsg struct {
	said string
	err  error
}

// SetMerge gives the fleet view what m runs once the user says y: the merge of a
// best-of's candidate, as the dashboard's button starts it; without it m says it cannot.
func (f *Fleet) SetMerge(merge func(group, candidate string) (string, error)) { f.merge = merge }

// mergeKey is m on the loop under the cursor: a best-of candidate that can be merged is
// asked about (y/n); any other loop is told why not.
func (f *Fleet) mergeKey() tea.Cmd {
	p := f.list
	if len(p.names) == 0 {
		return nil
	}
	name := p.names[p.cursor]
	c, ok := p.cands[name]
	switch {
	case !ok:
		p.said, p.saidBad = "m merges a candidate of a best-of; "+name+" is not one", true
	case c.Rank == 0:
		p.said, p.saidBad = "the best-of "+c.Group+" ranks its candidates when all have ended: nothing to merge yet", true
	case !c.Mergeable:
		p.said, p.saidBad = name+" cannot be merged from here (it runs, or the merge queue has it)", true
	case f.merge == nil:
		p.said, p.saidBad = "this view cannot merge: run git ralph merge "+name, true
	default:
		f.asking = name
		p.said, p.saidBad = f.question(), false
	}
	return nil
}

// question is what m asks before it merges.
func (f *Fleet) question() string {
	c := f.list.cands[f.asking]
	return fmt.Sprintf("merge %s into %s? y/n", f.asking, orDash(c.Base))
}

// confirmKey answers the question: y starts the merge (in a tea.Cmd, never in Update),
// anything else drops it.
func (f *Fleet) confirmKey(k tea.KeyMsg) tea.Cmd {
	name := f.asking
	f.asking = ""
	if k.String() == "ctrl+c" {
		return tea.Quit
	}
	if k.String() != "y" && k.String() != "Y" {
		f.list.said, f.list.saidBad = "not merged", false
		return nil
	}
	c, merge := f.list.cands[name], f.merge
	f.list.said, f.list.saidBad = "starting git ralph merge "+name+"…", false
	return func() tea.Msg {
		said, err := merge(c.Group, name)
		return pickedMsg{said: said, err: err}
	}
}

// picked shows what the merge said, and reads the loops at once: the merge queue's
// state of the candidate shows in the list.
func (f *Fleet) picked(msg pickedMsg) tea.Cmd {
	if msg.err != nil {
		f.list.said, f.list.saidBad = "error: "+oneLine(msg.err.Error()), true
	} else {
		f.list.said, f.list.saidBad = oneLine(msg.said), false
	}
	read := f.read
	return func() tea.Msg {
		loops, err := read()
		return fleetLoadedMsg{loops: loops, err: err}
	}
}

// keyList is the fleet view's every key, for ?.
func (p *Picker) keyList() string {
	var b strings.Builder
	b.WriteString(p.fit(p.st.bold.Render("keys of the list of loops")) + "\n")
	for _, k := range []key.Binding{p.keys.Up, p.keys.Down, p.keys.Top, p.keys.Bottom, p.keys.Watch, p.keys.Merge, p.keys.Help, p.keys.Quit} {
		h := k.Help()
		b.WriteString(p.fit(fmt.Sprintf("  %-7s %s", h.Key, h.Desc)) + "\n")
	}
	b.WriteString(p.fit("  m asks 'merge NAME into BASE? y/n'; y runs git ralph merge NAME in the background (its output in .ralph/logs/merge-NAME.log)") + "\n")
	b.WriteString(p.fit(p.st.dim.Render("esc or ? goes back to the list")))
	return b.String()
}

// bestOf takes the candidates and the best-of lines of the loops read.
func (p *Picker) bestOf(l Loops) {
	p.cands, p.notes = l.Candidates, l.Notes
	p.keys.bestOf = len(l.Candidates) > 0
}
