package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// NO_COLOR leaves no escape code in the view; a small terminal gets the status and keys.
func TestViewColorAndSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output.log")
	write(t, path, "hello\n")
	source := func() (Snapshot, error) {
		return Snapshot{Header: []string{"status: running", "iteration: 1/3"}, Output: path}, nil
	}
	for _, color := range []bool{false, true} {
		m := New(source, Actions{}, color)
		m.Update(tea.WindowSizeMsg{Width: 60, Height: 12})
		m.Update(tickMsg{})
		v := m.View()
		if !strings.Contains(v, "hello") || !strings.Contains(v, "iteration: 1/3") {
			t.Errorf("color %v: the view lacks the output or the header:\n%s", color, v)
		}
		if strings.Contains(v, "\x1b") != color {
			t.Errorf("color %v: escape codes %v in:\n%q", color, !color, v)
		}
		if n := strings.Count(v, "\n") + 1; n != 12 {
			t.Errorf("color %v: %d lines, want the terminal's 12", color, n)
		}
	}
	m := New(source, Actions{}, false)
	m.Update(tea.WindowSizeMsg{Width: 30, Height: 4})
	m.Update(tickMsg{})
	v := m.View()
	if strings.Contains(v, "hello") || !strings.HasPrefix(v, "status: running\n") {
		t.Errorf("small terminal: want the status line and keys only:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if len([]rune(l)) > 30 {
			t.Errorf("line wider than the terminal: %q", l)
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
