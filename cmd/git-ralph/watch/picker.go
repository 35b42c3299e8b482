package watch

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// Picker is the list of the repository's loops `git ralph watch` shows when no loop runs
// in the work tree and no --loop names one: arrows or j/k move, Enter watches the loop
// under the cursor, q quits.
type Picker struct {
	title  string
	header string
	names  []string
	lines  []string
	color  bool

	width, height int
	cursor        int
	chosen        string
}

// NewPicker lists the loops names (lines[i] shows names[i]) under title and the columns'
// header; color false (NO_COLOR) leaves every escape code out.
func NewPicker(title, header string, names, lines []string, color bool) *Picker {
	return &Picker{title: title, header: header, names: names, lines: lines, color: color, width: 80, height: 24}
}

// Chosen is the name of the loop picked with Enter; "" when the picker was quit.
func (p *Picker) Chosen() string { return p.chosen }

// Init does nothing: the list is read once, before.
func (p *Picker) Init() tea.Cmd { return nil }

// Update moves the cursor, picks or quits.
func (p *Picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "esc", "ctrl+c":
			return p, tea.Quit
		case "up", "k":
			p.cursor = max(p.cursor-1, 0)
		case "down", "j":
			p.cursor = min(p.cursor+1, len(p.names)-1)
		case "home", "g":
			p.cursor = 0
		case "end", "G":
			p.cursor = len(p.names) - 1
		case "enter":
			if len(p.names) > 0 {
				p.chosen = p.names[p.cursor]
				return p, tea.Quit
			}
		}
	}
	return p, nil
}

// View draws the title, the columns' header, the loops (the one under the cursor marked
// with '>'; scrolled so it stays in sight) and the key bar.
func (p *Picker) View() string {
	var b strings.Builder
	b.WriteString(p.fit(p.title) + "\n\n")
	b.WriteString(p.fit("  "+p.header) + "\n")
	room := max(p.height-5, 1)
	first := 0
	if p.cursor >= room {
		first = p.cursor - room + 1
	}
	shown := 0
	for i := first; i < len(p.lines) && shown < room; i, shown = i+1, shown+1 {
		mark := "  "
		if i == p.cursor {
			mark = "> "
		}
		line := p.fit(mark + p.lines[i])
		if i == p.cursor && p.color {
			line = "\x1b[7m" + line + "\x1b[0m"
		}
		b.WriteString(line + "\n")
	}
	if len(p.lines) == 0 {
		b.WriteString("  (no loops)\n")
		shown++
	}
	for range room - shown {
		b.WriteString("\n")
	}
	b.WriteString(p.fit("↑/↓ or j/k move  Enter watch this loop  q quit"))
	return b.String()
}

func (p *Picker) fit(s string) string { return (&Model{width: p.width}).fit(s) }
