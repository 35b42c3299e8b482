package watch

import (
	"errors"
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
		return Snapshot{Loop: "alpha", State: Running, Iteration: 1, Max: 3, Output: path}, nil
	}
	for _, color := range []bool{false, true} {
		m := New(source, Actions{}, color)
		m.Update(tea.WindowSizeMsg{Width: 60, Height: 12})
		m.Update(m.reader.read())
		v := m.View()
		if !strings.Contains(v, "hello") || !strings.Contains(v, "iteration 1/3") {
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
	m.Update(m.reader.read())
	v := m.View()
	if strings.Contains(v, "hello") || !strings.HasPrefix(v, "[RUNNING] alpha\n") {
		t.Errorf("small terminal: want the status line and keys only:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if len([]rune(l)) > 30 {
			t.Errorf("line wider than the terminal: %q", l)
		}
	}
}

// A tick asks for a read and does no I/O itself: the read is a command, whose message
// Update folds in (then asks for the next tick).
func TestTickReadsInACommand(t *testing.T) {
	reads := 0
	m := New(func() (Snapshot, error) {
		reads++
		return Snapshot{Loop: "alpha", State: Running}, nil
	}, Actions{}, false)
	_, cmd := m.Update(tickMsg{})
	if reads != 0 || cmd == nil {
		t.Fatalf("a tick read the loop itself (%d reads) or asked for no read (cmd %v)", reads, cmd)
	}
	msg := cmd()
	if reads != 1 {
		t.Fatalf("the tick's command read the loop %d times, want 1", reads)
	}
	if _, next := m.Update(msg); next == nil {
		t.Error("after a read, no next tick is asked for")
	}
	if !strings.Contains(m.View(), "[RUNNING] alpha") {
		t.Errorf("the read is not shown:\n%s", m.View())
	}
}

// Update folds what was read: lines add up, another log starts them again, an error
// replaces the header, an action's answer shows on its line.
func TestUpdateFoldsMessages(t *testing.T) {
	m := New(nil, Actions{}, false)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 12})
	m.Update(loadedMsg{snap: Snapshot{Loop: "alpha", State: Running}, lines: []string{"first"}, reset: true})
	m.Update(loadedMsg{snap: Snapshot{Loop: "alpha", State: Running}, lines: []string{"second"}})
	if v := m.View(); !strings.Contains(v, "first") || !strings.Contains(v, "second") {
		t.Errorf("the lines of two reads of one log are not both shown:\n%s", v)
	}
	m.Update(loadedMsg{snap: Snapshot{Loop: "alpha", State: Running}, lines: []string{"next log"}, reset: true})
	if v := m.View(); strings.Contains(v, "first") || !strings.Contains(v, "next log") {
		t.Errorf("another log's lines are not shown alone:\n%s", v)
	}
	m.Update(loadedMsg{err: errors.New("state unreadable")})
	if v := m.View(); !strings.Contains(v, "error: state unreadable") {
		t.Errorf("a read's error is not shown:\n%s", v)
	}
	m.Update(doneMsg{text: "paused"})
	if v := m.View(); !strings.Contains(v, "paused") {
		t.Errorf("the action's answer is not shown:\n%s", v)
	}
}

// A key's action runs in a command, its answer folded in as a message.
func TestKeyRunsItsActionInACommand(t *testing.T) {
	ran := 0
	m := New(nil, Actions{Pause: func(string) (string, error) { ran++; return "pausing", nil }}, false)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p")})
	if ran != 0 || cmd == nil {
		t.Fatalf("p ran its action in Update (%d) or returned no command", ran)
	}
	m.Update(cmd())
	if ran != 1 || !strings.Contains(m.View(), "pausing") {
		t.Errorf("p: ran %d times, view:\n%s", ran, m.View())
	}
}

// The reader follows the log the snapshot names, from where it left off, and starts
// again when the snapshot names another.
func TestReaderFollowsTheOutput(t *testing.T) {
	dir := t.TempDir()
	one, two := filepath.Join(dir, "1.log"), filepath.Join(dir, "2.log")
	write(t, one, "a\n")
	write(t, two, "z\n")
	path := one
	r := &reader{source: func() (Snapshot, error) { return Snapshot{Output: path}, nil }}
	if msg := r.read().(loadedMsg); !msg.reset || strings.Join(msg.lines, "|") != "a" {
		t.Fatalf("first read: %+v", msg)
	}
	write(t, one, "a\nb\n")
	if msg := r.read().(loadedMsg); msg.reset || strings.Join(msg.lines, "|") != "b" {
		t.Fatalf("the grown log: %+v", msg)
	}
	path = two
	if msg := r.read().(loadedMsg); !msg.reset || strings.Join(msg.lines, "|") != "z" {
		t.Fatalf("another log: %+v", msg)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
