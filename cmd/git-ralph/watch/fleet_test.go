package watch

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// The fleet lists the loops; Enter drills into the one under the cursor, Esc comes back
// to the list, which, read again, keeps the cursor on the same loop wherever it moved.
func TestFleetDrillsInAndBack(t *testing.T) {
	loops := Loops{Header: "NAME   STATE", Names: []string{"main", "alpha", "beta"},
		Lines: []string{"main   running", "alpha  running", "beta   needs-review"}, States: []string{"running", "running", "needs-review"}}
	var opened []string
	f := NewFleet("the repository's loops:", loops, func() (Loops, error) { return loops, nil },
		func(name string) (*Model, error) {
			opened = append(opened, name)
			return New(func() (Snapshot, error) { return Snapshot{Loop: name, State: Running}, nil }, Actions{}, false), nil
		}, false)
	f.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
	_, cmd := f.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if len(opened) != 1 || opened[0] != "alpha" || cmd == nil {
		t.Fatalf("Enter on alpha opened %v", opened)
	}
	f.Update(cmd())
	if v := f.View(); !strings.HasPrefix(v, "[RUNNING] alpha") || !strings.Contains(v, "esc all loops") {
		t.Errorf("alpha's view is not shown, or not how to go back:\n%s", v)
	}
	old := f.inner.reader
	_, cmd = f.Update(tea.KeyMsg{Type: tea.KeyEsc})
	f.Update(cmd())
	if v := f.View(); !strings.Contains(v, "> alpha  running") || f.inner != nil {
		t.Errorf("Esc: the list is not back with the cursor on alpha:\n%s", v)
	}
	// the list read again, alpha now last: the cursor goes with it
	loops = Loops{Header: loops.Header, Names: []string{"main", "beta", "alpha"},
		Lines: []string{"main   running", "beta   needs-review", "alpha  running"}, States: []string{"running", "needs-review", "running"}}
	f.Update(f.readCmd()())
	if v := f.View(); !strings.Contains(v, "> alpha  running") || !strings.Contains(v, "1 loop needs review") {
		t.Errorf("read again: want the cursor on alpha and beta's review said:\n%s", v)
	}
	// a tick of the view left behind does not start reads in the next one opened
	_, cmd = f.Update(tea.KeyMsg{Type: tea.KeyEnter})
	f.Update(cmd())
	if _, cmd := f.Update(tickMsg{r: old}); cmd != nil {
		t.Error("the dropped view's tick started a read in the new one")
	}
}

// readCmd is what a fleet tick returns: the read of the loops.
func (f *Fleet) readCmd() tea.Cmd {
	_, cmd := f.Update(fleetTickMsg{})
	return cmd
}

// An empty list (every loop pruned since) takes every key without a panic.
func TestFleetEmpty(t *testing.T) {
	f := NewFleet("loops:", Loops{Header: "NAME"}, func() (Loops, error) { return Loops{Header: "NAME"}, nil },
		func(string) (*Model, error) { t.Fatal("opened a loop of an empty list"); return nil, nil }, false)
	for _, k := range []tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeyRunes, Runes: []rune("G")}, {Type: tea.KeyEnter}} {
		f.Update(k)
	}
	f.Update(f.readCmd()())
	if v := f.View(); !strings.Contains(v, "(no loops)") {
		t.Errorf("an empty list:\n%s", v)
	}
}
