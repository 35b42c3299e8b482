package watch

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// needsReview is the state of a worktree loop whose merge waits for the user: the one
// state of the list that asks something of them, so it stands out.
const needsReview = "needs-review"

// Picker is the list of the repository's loops the fleet view shows: arrows or j/k move
// its cursor (the fleet handles Enter and q).
type Picker struct {
	title  string
	header string
	names  []string
	lines  []string
	states []string
	st     styles
	keys   pickerKeys
	help   help.Model

	width, height int
	cursor        int

	// the best-of candidates among the loops, by name, and a line per best-of (bestof.go)
	cands    map[string]Candidate
	notes    []string
	said     string // what the last key said (m), above the key bar
	saidBad  bool
	showKeys bool // ? lists every key
}

type pickerKeys struct {
	Up, Down, Top, Bottom, Watch, Merge, Help, Quit key.Binding
	bestOf                                          bool // the list has best-of candidates: the bar names m
}

func (k pickerKeys) ShortHelp() []key.Binding {
	if k.bestOf {
		return []key.Binding{k.Up, k.Down, k.Watch, k.Merge, k.Quit, k.Help}
	}
	return []key.Binding{k.Up, k.Down, k.Watch, k.Quit}
}

func (k pickerKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// NewPicker lists the loops names (lines[i] shows names[i], in state states[i]) under
// title and the columns' header; color false (NO_COLOR) leaves every escape code out.
func NewPicker(title, header string, names, lines, states []string, color bool) *Picker {
	k := func(keys []string, h, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(h, desc))
	}
	p := &Picker{title: title, header: header, names: names, lines: lines, states: states, st: newStyles(color),
		width: 80, height: 24, help: help.New(),
		keys: pickerKeys{
			Up:     k([]string{"up", "k"}, "↑/k", "up"),
			Down:   k([]string{"down", "j"}, "↓/j", "down"),
			Top:    k([]string{"home", "g"}, "g", "first"),
			Bottom: k([]string{"end", "G"}, "G", "last"),
			Watch:  k([]string{"enter"}, "enter", "watch this loop"),
			Merge:  k([]string{"m"}, "m", "merge this best-of candidate"),
			Help:   k([]string{"?"}, "?", "all keys"),
			Quit:   k([]string{"q", "ctrl+c"}, "q", "quit"),
		}}
	p.help.ShortSeparator = "  "
	p.help.Styles = help.Styles{ShortKey: p.st.bold, ShortDesc: p.st.dim, ShortSeparator: p.st.dim, Ellipsis: p.st.dim}
	return p
}

// Update moves the cursor and follows the terminal's size.
func (p *Picker) Update(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
		p.help.Width = msg.Width
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, p.keys.Up):
			p.cursor = max(p.cursor-1, 0)
		case key.Matches(msg, p.keys.Down):
			p.cursor = max(min(p.cursor+1, len(p.names)-1), 0)
		case key.Matches(msg, p.keys.Top):
			p.cursor = 0
		case key.Matches(msg, p.keys.Bottom):
			p.cursor = max(len(p.names)-1, 0)
		}
	}
}

// View draws the title, what needs review, the columns' header, the loops (the one
// under the cursor marked with '>' and reversed, those needing review in their colour;
// scrolled so the cursor stays in sight) and the key bar.
func (p *Picker) View() string {
	if p.showKeys {
		return p.keyList()
	}
	var b strings.Builder
	b.WriteString(p.fit(p.st.bold.Render(p.title)) + "\n")
	b.WriteString(p.fit(p.reviewLine()) + "\n")
	for _, n := range p.notes {
		b.WriteString(p.fit(n) + "\n")
	}
	b.WriteString(p.fit(p.st.dim.Render("  "+p.rankHeader()+p.header)) + "\n")
	room := max(p.height-5-len(p.notes), 1)
	if p.said != "" {
		room = max(room-1, 1)
	}
	first := 0
	if p.cursor >= room {
		first = p.cursor - room + 1
	}
	shown := 0
	for i := first; i < len(p.lines) && shown < room; i, shown = i+1, shown+1 {
		b.WriteString(p.row(i) + "\n")
	}
	if len(p.lines) == 0 {
		b.WriteString("  (no loops)\n")
		shown++
	}
	for range room - shown {
		b.WriteString("\n")
	}
	if p.said != "" {
		st := p.st.dim
		switch {
		case p.saidBad:
			st = p.st.bad
		case strings.HasSuffix(p.said, "? y/n"): // m's question waits for its answer
			st = p.st.review
		}
		b.WriteString(p.fit(st.Render(p.said)) + "\n")
	}
	b.WriteString(p.fit(p.help.ShortHelpView(p.keys.ShortHelp())))
	return b.String()
}

// row is loop i's line: '>' and reversed under the cursor, in the review colour when
// its merge needs the user.
func (p *Picker) row(i int) string {
	mark := "  "
	if i == p.cursor {
		mark = "> "
	}
	line := p.fit(mark + p.rank(i) + p.lines[i])
	switch {
	case i == p.cursor:
		return p.st.selected.Render(line)
	case i < len(p.states) && p.states[i] == needsReview:
		return p.st.review.Render(line)
	}
	return line
}

// reviewLine says how many loops need review, the one thing the list asks of the user.
func (p *Picker) reviewLine() string {
	n := 0
	for _, s := range p.states {
		if s == needsReview {
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return p.st.review.Render("1 loop needs review (its merge waits for you); watch it for what went wrong")
	}
	return p.st.review.Render(fmt.Sprintf("%d loops need review (their merges wait for you)", n))
}

func (p *Picker) fit(s string) string { return ansi.Truncate(s, p.width, "") }

// rankHeader and rank are the best-of rank column (bestof.go), there only when the list
// has candidates.
func (p *Picker) rankHeader() string {
	if len(p.cands) == 0 {
		return ""
	}
	return fmt.Sprintf("%-*s", rankColumn, "RANK")
}

func (p *Picker) rank(i int) string {
	if len(p.cands) == 0 {
		return ""
	}
	if c, ok := p.cands[p.names[i]]; ok {
		return c.mark()
	}
	return strings.Repeat(" ", rankColumn)
}
