package watch

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// header is the lines above the body: which loop, its state and iteration, its spend.
func (m *Model) header() []string {
	if m.err != nil {
		return []string{m.st.bad.Render(m.fit("error: " + oneLine(m.err.Error())))}
	}
	s := m.snap
	lines := []string{m.heading(), m.progressLine()}
	lines = append(lines, m.spendLines()...)
	if s.State != Running && s.Status != "" {
		lines = append(lines, m.st.dim.Render(m.fit(s.Status)))
	}
	for _, n := range s.Notes {
		lines = append(lines, m.st.dim.Render(m.fit(n)))
	}
	return lines
}

// heading is the state's badge and what runs: loop · branch · mode · task · agent model.
func (m *Model) heading() string {
	s := m.snap
	badge := m.badge(s.State)
	var parts []string
	for _, p := range []string{s.Loop, s.Branch, s.Mode, s.Task, strings.TrimSpace(s.Agent + " " + s.Model)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	rest := m.fitTo(strings.Join(parts, " · "), m.width-lipgloss.Width(badge)-1)
	return badge + " " + m.st.bold.Render(rest)
}

// badge is the state in its colour; bracketed without colour, so it still stands out.
func (m *Model) badge(st State) string {
	if st == "" {
		st = NotRun
	}
	label := strings.ToUpper(string(st))
	if st == Waiting && !m.snap.WaitUntil.IsZero() {
		label += " " + dur(m.snap.WaitUntil.Sub(m.snap.Now))
	}
	if !m.st.color {
		return "[" + label + "]"
	}
	return m.st.badge[st].Render(" " + label + " ")
}

// progressLine is iteration i/N with its bar, and the running iteration's time against
// the mean of those recorded.
func (m *Model) progressLine() string {
	s := m.snap
	it := fmt.Sprintf("iteration %d/%d", s.Iteration, s.Max)
	if s.Max == 0 {
		it = fmt.Sprintf("iteration %d (no maximum)", s.Iteration)
	}
	line := it
	if s.Max > 0 {
		line += " " + m.meter(float64(s.Iteration), float64(s.Max), 20, m.st.info)
	}
	if !s.Started.IsZero() {
		line += " · this one " + dur(s.Now.Sub(s.Started))
		if s.Mean > 0 {
			line += ", mean " + dur(s.Mean)
		}
	} else if s.Mean > 0 {
		line += " · mean " + dur(s.Mean)
	}
	return m.fit(line)
}

// spendLines are the spend against each budget, a bar each, as many on a line as fit;
// the spend alone without a budget.
func (m *Model) spendLines() []string {
	s := m.snap
	if len(s.Budgets) == 0 {
		if s.Spend == "" {
			return nil
		}
		return []string{m.fit("spend " + s.Spend)}
	}
	var lines []string
	line := "spend"
	for _, b := range s.Budgets {
		st := m.st.ok
		switch f := b.Used / b.Limit; {
		case f >= 0.9:
			st = m.st.bad
		case f >= 0.7:
			st = m.st.warn
		}
		part := b.Text + " " + m.meter(b.Used, b.Limit, 12, st)
		if line != "spend" && ansi.StringWidth(line+" · "+part) > m.width {
			lines, line = append(lines, m.fit(line)), "     "
		}
		if line == "spend" || line == "     " {
			line += " " + part
		} else {
			line += " · " + part
		}
	}
	return append(lines, m.fit(line))
}

// meter is a bar of width cells filled to used/limit, in style st.
func (m *Model) meter(used, limit float64, width int, st lipgloss.Style) string {
	if m.width < 60 {
		width /= 2
	}
	f := 0.0
	if limit > 0 {
		f = min(max(used/limit, 0), 1)
	}
	full := int(f*float64(width) + 0.5)
	return st.Render(strings.Repeat("█", full)) + m.st.dim.Render(strings.Repeat("░", width-full))
}

// dur is a clock for people, to the second: 45s, 2m10s, 1h02m.
func dur(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
