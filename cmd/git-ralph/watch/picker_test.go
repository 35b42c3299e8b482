package watch

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// The picker names its keys, and the loop whose merge needs review stands out: its row
// in the review colour (bold magenta) and a line above the list saying so; under
// NO_COLOR the line and the state's word remain, with no escape code.
func TestPickerHighlightsNeedsReview(t *testing.T) {
	pick := func(color bool) string {
		p := NewPicker("pick one", "NAME   STATE", []string{"main", "alpha", "beta"},
			[]string{"main   running", "alpha  needs-review", "beta   finished"},
			[]string{"running", "needs-review", "finished"}, color)
		p.Update(tea.WindowSizeMsg{Width: 80, Height: 12})
		return p.View()
	}
	v := pick(true)
	if !strings.Contains(v, "\x1b[1;35m  alpha  needs-review\x1b[0m") {
		t.Errorf("the needs-review row is not highlighted:\n%q", v)
	}
	if strings.Contains(v, "\x1b[1;35m  beta") {
		t.Errorf("a finished loop is highlighted as needing review:\n%q", v)
	}
	v = pick(false)
	for _, want := range []string{"1 loop needs review", "> main   running", "  alpha  needs-review", "↑/k up  ↓/j down  enter watch this loop  q quit"} {
		if !strings.Contains(v, want) {
			t.Errorf("NO_COLOR: the picker lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "\x1b") {
		t.Errorf("NO_COLOR: escape codes in the picker:\n%q", v)
	}
}
