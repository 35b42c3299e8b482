package watch

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// bestOfLoops is main, then the ranked best-of "try" (try-2 won, try-3 is being merged),
// then "wip" still running, as the command orders them.
func bestOfLoops() Loops {
	return Loops{Header: "NAME   STATE",
		Names:  []string{"main", "try-2", "try-1", "try-3", "wip-1"},
		Lines:  []string{"main   running", "try-2  finished", "try-1  finished", "try-3  merging", "wip-1  running"},
		States: []string{"running", "finished", "finished", "merging", "running"},
		Candidates: map[string]Candidate{
			"try-2": {Group: "try", Base: "main", Rank: 1, Winner: true, Mergeable: true},
			"try-1": {Group: "try", Base: "main", Rank: 2, Mergeable: true},
			"try-3": {Group: "try", Base: "main", Rank: 3},
			"wip-1": {Group: "wip", Base: "main"},
		},
		Notes: []string{"best-of try: ranked, the winner ★ try-2", "best-of wip: 2 candidates; ranking when all have ended"}}
}

type merges struct {
	asked []string
	err   error
}

func (m *merges) merge(group, candidate string) (string, error) {
	m.asked = append(m.asked, group+"/"+candidate)
	if m.err != nil {
		return "", m.err
	}
	return "started git ralph merge " + candidate, nil
}

func bestOfFleet(t *testing.T, m *merges) *Fleet {
	t.Helper()
	loops := bestOfLoops()
	f := NewFleet("loops:", loops, func() (Loops, error) { return loops, nil },
		func(string) (*Model, error) { t.Fatal("opened a loop"); return nil, nil }, false)
	f.SetMerge(m.merge)
	f.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	return f
}

func pressFleet(f *Fleet, keys string) tea.Cmd {
	var cmd tea.Cmd
	for _, r := range keys {
		_, cmd = f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return cmd
}

// The list shows the best-of's lines, a rank column with the winner starred, the
// candidates together in rank order, and m in the key bar.
func TestFleetShowsBestOfRanked(t *testing.T) {
	f := bestOfFleet(t, &merges{})
	v := f.View()
	for _, want := range []string{
		"best-of try: ranked, the winner ★ try-2", "ranking when all have ended",
		"  RANK NAME   STATE", "> " + "     main   running", "★  1 try-2  finished", "   2 try-1  finished", "   3 try-3  merging", "   … wip-1  running",
		"m merge this best-of candidate", "? all keys",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the list lacks %q:\n%s", want, v)
		}
	}
	if strings.Index(v, "try-2") > strings.Index(v, "try-1") || strings.Index(v, "try-1") > strings.Index(v, "try-3") {
		t.Errorf("not in rank order:\n%s", v)
	}
	plain := NewPicker("loops:", "NAME", []string{"main"}, []string{"main"}, []string{"running"}, false)
	plain.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	if got, want := strings.Count(v, "\n"), strings.Count(plain.View(), "\n"); got != want {
		t.Errorf("the view is %d lines, the list without best-of lines %d: the lines above do not take the list's room", got+1, want+1)
	}
}

// m on a candidate asks before it merges; n drops it; y starts the merge in a tea.Cmd
// (Update only folds messages), whose message says what it said and reads the list again.
func TestFleetMergeKeyAsksThenMerges(t *testing.T) {
	m := &merges{}
	f := bestOfFleet(t, m)
	pressFleet(f, "j") // try-2, the winner
	pressFleet(f, "m")
	if v := f.View(); !strings.Contains(v, "merge try-2 into main? y/n") {
		t.Fatalf("m does not ask:\n%s", v)
	}
	pressFleet(f, "n")
	if v := f.View(); !strings.Contains(v, "not merged") || len(m.asked) != 0 {
		t.Fatalf("n merged %v, or did not say so:\n%s", m.asked, v)
	}
	pressFleet(f, "j") // try-1
	pressFleet(f, "m")
	cmd := pressFleet(f, "y")
	if cmd == nil || len(m.asked) != 0 {
		t.Fatalf("y: cmd %v, merged in Update %v", cmd, m.asked)
	}
	if v := f.View(); !strings.Contains(v, "starting git ralph merge try-1") {
		t.Errorf("y does not say the merge starts:\n%s", v)
	}
	_, read := f.Update(cmd())
	if strings.Join(m.asked, " ") != "try/try-1" {
		t.Fatalf("merged %v, want try/try-1", m.asked)
	}
	if v := f.View(); !strings.Contains(v, "started git ralph merge try-1") {
		t.Errorf("the merge's words are not shown:\n%s", v)
	}
	if read == nil {
		t.Fatal("the list is not read again after the merge started")
	}
	if _, ok := read().(fleetLoadedMsg); !ok {
		t.Error("the command after the merge is not a read of the loops")
	}

	pressFleet(f, "m")
	if _, cmd := f.Update(tea.KeyMsg{Type: tea.KeyCtrlC}); cmd == nil || cmd() != tea.Quit() {
		t.Error("Ctrl+C at the question does not quit")
	}
	if len(m.asked) != 1 {
		t.Errorf("Ctrl+C merged: %v", m.asked)
	}

	m.err = errors.New("another merge is under way: feat is merging")
	pressFleet(f, "m")
	f.Update(pressFleet(f, "y")())
	if v := f.View(); !strings.Contains(v, "error: another merge is under way: feat is merging") {
		t.Errorf("a refused merge is not said:\n%s", v)
	}
}

// m on a loop it cannot merge says why, and asks nothing.
func TestFleetMergeKeyRefuses(t *testing.T) {
	m := &merges{}
	f := bestOfFleet(t, m)
	for _, c := range []struct{ moves, want string }{
		{"", "main is not one"},
		{"jjj", "try-3 cannot be merged from here"},
		{"j", "ranks its candidates when all have ended"},
	} {
		pressFleet(f, c.moves)
		pressFleet(f, "m")
		if v := f.View(); !strings.Contains(v, c.want) || strings.Contains(v, "y/n") {
			t.Errorf("m after %q: want %q, no question:\n%s", c.moves, c.want, v)
		}
		pressFleet(f, "y")
	}
	if len(m.asked) != 0 {
		t.Errorf("merged %v", m.asked)
	}
	f.SetMerge(nil)
	pressFleet(f, "gjm")
	if v := f.View(); !strings.Contains(v, "this view cannot merge: run git ralph merge try-2") {
		t.Errorf("without a merge: %s", v)
	}
}

// ? lists every key, m among them; any key goes back to the list.
func TestFleetKeyList(t *testing.T) {
	f := bestOfFleet(t, &merges{})
	pressFleet(f, "?")
	v := f.View()
	if !strings.Contains(v, "m       merge this best-of candidate") || !strings.Contains(v, "merge NAME into BASE? y/n") {
		t.Errorf("? does not list m:\n%s", v)
	}
	f.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if v := f.View(); !strings.Contains(v, "★  1 try-2") {
		t.Errorf("Esc does not go back to the list:\n%s", v)
	}
}

// A list without best-of candidates keeps its columns and key bar.
func TestFleetWithoutBestOf(t *testing.T) {
	loops := Loops{Header: "NAME   STATE", Names: []string{"main"}, Lines: []string{"main   running"}, States: []string{"running"}}
	f := NewFleet("loops:", loops, func() (Loops, error) { return loops, nil }, nil, false)
	v := f.View()
	if strings.Contains(v, "RANK") || strings.Contains(v, "merge") || !strings.Contains(v, "> main   running") {
		t.Errorf("a list without candidates changed:\n%s", v)
	}
}
