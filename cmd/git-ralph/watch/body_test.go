package watch

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func press(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		case "up":
			msg = tea.KeyMsg{Type: tea.KeyUp}
		case " ":
			msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune(" ")}
		}
		_, cmd = m.Update(msg)
	}
	return cmd
}

func running(its ...Iteration) Snapshot {
	return Snapshot{Loop: "alpha", State: Running, Now: now, Iteration: len(its), Max: 5, Iterations: its}
}

var three = []Iteration{
	{N: 1, Outcome: "success", Validation: "passed", Judge: "PASS", Duration: 65e9, Cost: "$0.12", Insertions: 12, Deletions: 3},
	{N: 2, Outcome: "success", Validation: "failed: exit code 2", Duration: 30e9, Insertions: 1},
	{N: 3, Running: true},
}

// The list shows one row per iteration with its icon and outcome, and a failed
// validation in the failure colour (red), a passed one in green.
func TestIterationsList(t *testing.T) {
	v := viewOf(running(three...), 100, 30, false)
	for _, want := range []string{
		"✓  1     success     passed                 PASS   1m05s   $0.12   +12 −3",
		"✗  2     success     failed: exit code 2    -      30s     -       +1 −0",
		"⏳ 3     running",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the list lacks %q:\n%s", want, v)
		}
	}
	v = viewOf(running(three...), 100, 30, true)
	if !strings.Contains(v, "\x1b[31mfailed: exit code 2\x1b[0m") {
		t.Errorf("the failed validation is not red:\n%q", v)
	}
	if !strings.Contains(v, "\x1b[32mpassed\x1b[0m") {
		t.Errorf("the passed validation is not green:\n%q", v)
	}
}

// Tab then Enter on a row shows that iteration's diff, coloured and read in a command;
// o shows its output, Esc goes back to the list.
func TestEnterShowsTheDiff(t *testing.T) {
	dir := t.TempDir()
	its := append([]Iteration(nil), three...)
	its[0].Diff, its[0].Output = filepath.Join(dir, "diff"), filepath.Join(dir, "output.log")
	write(t, its[0].Diff, "diff --git a/x b/x\n@@ -1 +1 @@\n-old line\n+new line\n")
	write(t, its[0].Output, "what iteration 1 said\n")
	m := New(nil, Actions{}, true)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(loadedMsg{snap: running(its...), reset: true})
	press(m, "tab", "k")
	cmd := press(m, "k", "enter")
	if cmd == nil {
		t.Fatal("Enter on a row read nothing")
	}
	m.Update(cmd())
	v := m.View()
	if !strings.Contains(v, "iteration 1 · diff") || !strings.Contains(v, "\x1b[32m+new line") || !strings.Contains(v, "\x1b[31m-old line") {
		t.Errorf("Enter on row 1: want its diff, coloured:\n%q", v)
	}
	m.Update(press(m, "o")())
	if v := ansi.Strip(m.View()); !strings.Contains(v, "iteration 1 · output") || !strings.Contains(v, "what iteration 1 said") {
		t.Errorf("o: want the iteration's output:\n%s", v)
	}
	press(m, "esc")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "iterations of this run (3)") {
		t.Errorf("Esc: want the list back:\n%s", v)
	}
}

func numbered(from, to int) []string {
	var l []string
	for i := from; i <= to; i++ {
		l = append(l, fmt.Sprintf("output line %d", i))
	}
	return l
}

// The output follows its end as it grows; scrolled back, it stays where the reader is
// (new lines do not move it) until G follows again; / finds a line, n the next.
func TestOutputScrollsBackAndFollows(t *testing.T) {
	m := New(nil, Actions{}, false)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(loadedMsg{snap: running(), lines: numbered(1, 100), reset: true})
	if v := m.View(); !strings.Contains(v, "output line 100\n") || !strings.Contains(v, "following") {
		t.Fatalf("the output does not follow its end:\n%s", v)
	}
	press(m, "up", "up", "up")
	m.Update(loadedMsg{snap: running(), lines: numbered(101, 101)})
	v := m.View()
	if strings.Contains(v, "output line 101") || strings.Contains(v, "output line 100\n") || !strings.Contains(v, "(G follows)") {
		t.Errorf("scrolled back, the view moved with the output or says it follows:\n%s", v)
	}
	press(m, "G")
	if v := m.View(); !strings.Contains(v, "output line 101\n") {
		t.Errorf("G: the output's end is not in sight:\n%s", v)
	}
	press(m, "/", "line 1", "0", "enter")
	v = m.View()
	if !strings.Contains(v, "line 10 of 101") || !strings.Contains(v, "── output ── line 10 of 101 (G follows) ─") || !strings.Contains(v, "─\noutput line 10\n") {
		t.Errorf("/line 10: want the output scrolled to it:\n%s", v)
	}
	press(m, "n")
	if v := m.View(); !strings.Contains(v, "\noutput line 100\n") || !strings.Contains(v, "/line 10: line 100 of 101") {
		t.Errorf("n: want the next line holding it:\n%s", v)
	}
	m.Update(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	if !strings.Contains(m.View(), "(G follows)") {
		t.Errorf("the mouse wheel does not scroll back:\n%s", m.View())
	}
}

// A key's answer is about the loop it steered: once the loop has ended, it goes.
func TestAnswerClearsWhenTheLoopEnds(t *testing.T) {
	m := New(nil, Actions{}, false)
	m.Update(loadedMsg{snap: running(three...), reset: true})
	m.Update(doneMsg{text: "the loop pauses once its current iteration is recorded"})
	m.Update(loadedMsg{snap: running(three...)})
	if !strings.Contains(m.View(), "pauses once") {
		t.Fatalf("the answer is not shown while the loop runs:\n%s", m.View())
	}
	done := running(three[:2]...)
	done.State = Done
	m.Update(loadedMsg{snap: done})
	if strings.Contains(m.View(), "pauses once") {
		t.Errorf("the answer stays after the loop ended:\n%s", m.View())
	}
}

// The help bar names the keys the state allows (p while running, r while paused), ?
// shows every key; at 80×24 and narrower every line fits and the screen is its height.
func TestHelpAndNarrowTerminals(t *testing.T) {
	v := viewOf(running(three...), 80, 24, false)
	last := v[strings.LastIndex(v, "\n")+1:]
	if !strings.HasPrefix(last, "p pause  i inject  c checkpoint  x cancel  q quit  ? all keys") {
		t.Errorf("running: the help bar is %q", last)
	}
	paused := running(three...)
	paused.State = Paused
	if v := viewOf(paused, 80, 24, false); !strings.Contains(v, "r resume") || strings.Contains(v, "p pause") {
		t.Errorf("paused: want r resume, not p pause:\n%s", v)
	}
	m := New(nil, Actions{}, false)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(loadedMsg{snap: running(three...), reset: true})
	press(m, "?")
	if v := m.View(); !strings.Contains(v, "next/previous match") || !strings.Contains(v, "bottom, follow") {
		t.Errorf("?: not every key is shown:\n%s", v)
	}
	for _, size := range [][2]int{{80, 24}, {60, 20}, {40, 12}, {30, 8}, {15, 3}} {
		for _, color := range []bool{false, true} {
			v := viewOf(running(three...), size[0], size[1], color)
			lines := strings.Split(v, "\n")
			if len(lines) > size[1] || size[1] >= 8 && len(lines) != size[1] {
				t.Errorf("%dx%d: %d lines:\n%s", size[0], size[1], len(lines), v)
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%dx%d: a line of %d cells: %q", size[0], size[1], w, l)
				}
			}
			if !strings.Contains(v, "RUNNING") {
				t.Errorf("%dx%d: the state is not shown:\n%s", size[0], size[1], v)
			}
		}
	}
}

// r resumes even before the view has read that the loop pauses: p then r at once.
func TestKeysWorkBeforeTheStateIsRead(t *testing.T) {
	resumed := false
	m := New(nil, Actions{Resume: func(string) (string, error) { resumed = true; return "resumed", nil }}, false)
	m.Update(loadedMsg{snap: running(three...), reset: true})
	if cmd := press(m, "r"); cmd != nil {
		m.Update(cmd())
	}
	if !resumed {
		t.Error("r did nothing while the view still showed the loop running")
	}
}
