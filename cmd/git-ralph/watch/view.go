package watch

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// areas is how the terminal's rows are shared: the header, the iterations list's rows
// and the output's (or the detail's) rows; small: only the state and the keys fit.
type areas struct {
	header     []string
	list, body int
	small      bool
}

// areas shares the rows: the header, then the list (a third of the rest at most, none
// on a short terminal), then the output; one line for answers, one for the keys.
func (m *Model) areas() areas {
	a := areas{header: m.header()}
	rest := m.height - len(a.header) - 2
	if rest < 3 || m.width < 20 {
		a.small = true
		return a
	}
	if n := len(m.snap.Iterations); n > 0 && m.detail == nil && rest >= 9 {
		a.list = min(n, max(1, (rest-3)/3))
		rest -= a.list + 2 // its title and its columns
	}
	a.body = rest - 1 // the output's or detail's title
	return a
}

// layout sizes the viewports to the terminal.
func (m *Model) layout() {
	a := m.areas()
	m.help.Width = m.width
	m.out.Width, m.out.Height = m.width, max(a.body, 1)
	if m.follow {
		m.out.GotoBottom()
	}
	if m.detail != nil {
		m.detail.vp.Width, m.detail.vp.Height = m.width, max(a.body, 1)
	}
}

// View draws the header, the iterations, the output (or an iteration's diff or output,
// or every key), the answer line and the key bar.
func (m *Model) View() string {
	a := m.areas()
	bar := m.bar()
	if a.small {
		return a.header[0] + "\n" + bar
	}
	var b strings.Builder
	for _, h := range a.header {
		b.WriteString(h + "\n")
	}
	switch {
	case m.help.ShowAll:
		b.WriteString(m.title("keys (? or Esc closes)", "") + "\n")
		b.WriteString(fill(m.help.FullHelpView(m.keys.FullHelp()), a.body+a.list+2*min(a.list, 1)))
	case m.detail != nil:
		b.WriteString(m.detailView(a))
	default:
		b.WriteString(m.listView(a))
		b.WriteString(m.outputView(a))
	}
	if m.message != "" && m.mode == normal {
		b.WriteString(m.fit(m.message))
	}
	b.WriteString("\n" + bar)
	return b.String()
}

// listView is the iterations list's title, its columns and the rows that fit, the
// cursor's row in sight.
func (m *Model) listView(a areas) string {
	if a.list == 0 {
		return ""
	}
	its := m.snap.Iterations
	first := max(len(its)-a.list, 0)
	if m.cursor < first {
		first = m.cursor
	}
	hint := "tab selects, enter shows the diff"
	if m.focus == onList {
		hint = "↑/↓ select, enter shows the diff, tab back to the output"
	}
	var b strings.Builder
	b.WriteString(m.title(fmt.Sprintf("iterations of this run (%d)", len(its)), hint) + "\n")
	b.WriteString(m.iterationsHeader() + "\n")
	for i := first; i < first+a.list && i < len(its); i++ {
		b.WriteString(m.row(its[i], i == m.cursor && m.focus == onList) + "\n")
	}
	return b.String()
}

// outputView is the live output's title (whose, following or where) and its lines.
func (m *Model) outputView(a areas) string {
	name := "output"
	if its := m.snap.Iterations; len(its) > 0 {
		name = fmt.Sprintf("output of iteration %d", its[len(its)-1].N)
	}
	where := "following (↑ scrolls back)"
	if !m.follow {
		where = fmt.Sprintf("line %d of %d (G follows)", m.out.YOffset+1, len(m.lines))
	}
	if len(m.lines) == 0 {
		where = "none yet"
	}
	if m.focus == onOutput && len(m.snap.Iterations) > 0 {
		name = "▸ " + name
	}
	return m.title(name, where) + "\n" + m.viewport(m.out.View(), a.body)
}

// detailView is an iteration's diff or output, scrollable, under its title.
func (m *Model) detailView(a areas) string {
	d := m.detail
	what, other := "diff", "o: its output"
	if d.kind == showOutput {
		what, other = "output", "o: its diff"
	}
	head := m.title(fmt.Sprintf("iteration %d · %s", d.it.N, what), other+", esc: back")
	if d.err != nil {
		return head + "\n" + fill(m.st.bad.Render(m.fit("error: "+oneLine(d.err.Error()))), a.body)
	}
	return head + "\n" + m.viewport(d.vp.View(), a.body)
}

// viewport fits a viewport's lines to the width and height; a line break after each.
func (m *Model) viewport(v string, height int) string {
	lines := strings.Split(v, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(m.fit(l), " ")
	}
	return fill(strings.Join(lines, "\n"), height)
}

// fill makes text exactly height lines, each ended by a line break.
func fill(text string, height int) string {
	lines := strings.Split(text, "\n")
	if len(lines) > height {
		lines = lines[:height]
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n") + "\n"
}

// title is a section's rule: "── name ── note ────".
func (m *Model) title(name, note string) string {
	s := "── " + m.st.bold.Render(name) + " "
	if note != "" {
		s += m.st.dim.Render("── "+note) + " "
	}
	if w := m.width - ansi.StringWidth(s); w > 0 {
		s += m.st.dim.Render(strings.Repeat("─", w))
	}
	return m.fit(s)
}

// bar is the last line: the keys, or the question asked.
func (m *Model) bar() string {
	switch m.mode {
	case asking:
		return m.fit("inject (Enter queues it for the next prompt, Esc drops it): " + string(m.input))
	case confirming:
		return m.fit("cancel the loop after its current iteration? y/n")
	case searching:
		return m.fit("/" + string(m.input) + "  (Enter finds it in the output, Esc drops it)")
	}
	return m.fit(m.help.ShortHelpView(m.keys.ShortHelp()))
}

// fit cuts a line, styled or not, to the terminal's width, so no line wraps and the
// layout holds.
func (m *Model) fit(s string) string { return m.fitTo(s, m.width) }

func (m *Model) fitTo(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "")
}
