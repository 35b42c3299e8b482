package watch

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// icon is a row's outcome at a glance: ⏳ running, ✓ passed, ✗ failed, ⏸ interrupted.
func (m *Model) icon(it Iteration) string {
	switch {
	case it.Running:
		return m.st.info.Render("⏳")
	case failed(it):
		return m.st.bad.Render("✗")
	case it.Outcome == "interrupted":
		return m.st.warn.Render("⏸")
	}
	return m.st.ok.Render("✓")
}

// failed: the agent failed, or what checks its work did.
func failed(it Iteration) bool {
	switch it.Outcome {
	case "failure", "halted", "crashed":
		return true
	}
	return strings.HasPrefix(it.Validation, "failed") || strings.HasPrefix(it.Validation, "timed out") ||
		it.Judge == "FAIL" || it.Judge == "error"
}

// iterationsHeader names the list's columns.
func (m *Model) iterationsHeader() string {
	return m.st.dim.Render(m.fit(m.columns("", "#", "outcome", "validation", "judge", "time", "cost", "lines")))
}

// row is one iteration, like a CI run's step: icon, number, outcome, validation, judge,
// duration, cost and lines added and removed. The row under the cursor is reversed
// while the list has the focus.
func (m *Model) row(it Iteration, selected bool) string {
	outcome, validation, judge := it.Outcome, it.Validation, it.Judge
	if it.Running {
		outcome = "running"
	}
	vstyle := m.st.ok
	if strings.HasPrefix(validation, "failed") || strings.HasPrefix(validation, "timed out") {
		vstyle = m.st.bad
	}
	jstyle := m.st.ok
	if judge != "PASS" {
		jstyle = m.st.bad
	}
	if failed(Iteration{Outcome: outcome}) {
		outcome = m.st.bad.Render(cut(outcome, 11))
	}
	lines := ""
	if !it.Running {
		lines = m.st.ok.Render(fmt.Sprintf("+%d", it.Insertions)) + " " + m.st.bad.Render(fmt.Sprintf("−%d", it.Deletions))
	}
	took := ""
	if !it.Running {
		took = dur(it.Duration)
	}
	line := m.columns(m.icon(it), fmt.Sprintf("%d", it.N), cut(outcome, 11),
		styled(vstyle, cut(orDash(validation), 22)), styled(jstyle, cut(orDash(judge), 6)), took, orDash(it.Cost), lines)
	if selected {
		line = m.st.selected.Render(ansi.Strip(m.fit(line)))
	}
	return m.fit(line)
}

// columns lays the cells out at fixed widths, measured in cells (escape codes aside).
func (m *Model) columns(icon, n, outcome, validation, judge, took, cost, lines string) string {
	cells := []struct {
		s string
		w int
	}{{icon, 2}, {n, 5}, {outcome, 11}, {validation, 22}, {judge, 6}, {took, 7}, {cost, 7}, {lines, 0}}
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(c.s)
		if pad := c.w - ansi.StringWidth(c.s); pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// styled is s in st; "-" (nothing to say) stays plain.
func styled(st lipgloss.Style, s string) string {
	if s == "-" {
		return s
	}
	return st.Render(s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cut shortens s to width cells, an ellipsis saying so.
func cut(s string, width int) string { return ansi.Truncate(s, width, "…") }
