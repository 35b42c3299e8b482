package watch

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Loops is the repository's loops as the fleet view lists them: the columns' header and,
// for each loop, its name, its line and its state.
type Loops struct {
	Header               string
	Names, Lines, States []string
	// Candidates are the loops that are best-of candidates, by name; Notes a line per
	// best-of (its ranking, or that it ranks when all have ended), above the list.
	Candidates map[string]Candidate
	Notes      []string
}

// FleetTick is how often the fleet view reads the loops again: it runs git (the
// worktrees, how far each branch is ahead), so less often than a loop's view reads files.
const FleetTick = 3 * time.Second

// Fleet is every loop of the repository, like k9s: the list is read again every
// FleetTick, Enter drills into the loop under the cursor (its watch view, which Esc
// leaves for the list again), q quits.
type Fleet struct {
	list  *Picker
	read  func() (Loops, error)
	open  func(name string) (*Model, error)
	inner *Model
	err   error
	size  tea.WindowSizeMsg
	// merge starts a best-of candidate's merge (SetMerge); asking is the candidate m
	// asks about, "" when no question is open
	merge  func(group, candidate string) (string, error)
	asking string
}

type fleetTickMsg struct{}

type fleetLoadedMsg struct {
	loops Loops
	err   error
}

// backMsg: the loop's view asks to go back to the list (Esc with nothing else to close).
type backMsg struct{}

// NewFleet lists the loops read reads (first is the list read once already, before the
// view started) under title; open makes the view of one loop.
func NewFleet(title string, first Loops, read func() (Loops, error), open func(name string) (*Model, error), color bool) *Fleet {
	f := &Fleet{list: NewPicker(title, first.Header, first.Names, first.Lines, first.States, color), read: read, open: open,
		size: tea.WindowSizeMsg{Width: 80, Height: 24}}
	f.list.bestOf(first)
	return f
}

// Init reads the loops again after FleetTick.
func (f *Fleet) Init() tea.Cmd { return fleetTick() }

func fleetTick() tea.Cmd {
	return tea.Tick(FleetTick, func(time.Time) tea.Msg { return fleetTickMsg{} })
}

// Update reads the loops, drills in and out, and hands a loop's view its messages.
func (f *Fleet) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.size = msg
		f.list.Update(msg)
	case fleetTickMsg:
		read := f.read
		return f, func() tea.Msg {
			loops, err := read()
			return fleetLoadedMsg{loops: loops, err: err}
		}
	case fleetLoadedMsg:
		f.loaded(msg)
		return f, fleetTick()
	case backMsg:
		f.inner = nil
		return f, nil
	case pickedMsg:
		return f, f.picked(msg)
	}
	if f.inner != nil {
		_, cmd := f.inner.Update(msg)
		return f, cmd
	}
	if k, ok := msg.(tea.KeyMsg); ok && f.asking != "" {
		return f, f.confirmKey(k)
	}
	if k, ok := msg.(tea.KeyMsg); ok {
		return f, f.key(k)
	}
	return f, nil // a loop's view left behind: its reads end here
}

// loaded puts the loops read in the list, the cursor on the loop it was on.
func (f *Fleet) loaded(msg fleetLoadedMsg) {
	f.err = msg.err
	if msg.err != nil {
		return
	}
	p := f.list
	on := ""
	if p.cursor < len(p.names) {
		on = p.names[p.cursor]
	}
	p.header, p.names, p.lines, p.states = msg.loops.Header, msg.loops.Names, msg.loops.Lines, msg.loops.States
	p.bestOf(msg.loops)
	p.cursor = min(p.cursor, max(len(p.names)-1, 0))
	for i, n := range p.names {
		if n == on {
			p.cursor = i
		}
	}
}

// key moves in the list, drills into a loop with Enter, quits with q.
func (f *Fleet) key(k tea.KeyMsg) tea.Cmd {
	p := f.list
	if p.showKeys { // the key list: ?, Esc or q go back to the list
		p.showKeys = false
		return nil
	}
	switch {
	case key.Matches(k, p.keys.Help):
		p.showKeys = true
		return nil
	case key.Matches(k, p.keys.Merge):
		return f.mergeKey()
	case key.Matches(k, p.keys.Watch):
		if len(p.names) == 0 {
			return nil
		}
		m, err := f.open(p.names[p.cursor])
		if err != nil {
			f.err = err
			return nil
		}
		m.back, m.keys.fleet = true, true
		f.inner, f.err = m, nil
		m.Update(f.size)
		return m.Init()
	case key.Matches(k, p.keys.Quit):
		return tea.Quit
	}
	p.Update(k)
	return nil
}

// View is the loop's view, or the list (with the last error reading or opening).
func (f *Fleet) View() string {
	if f.inner != nil {
		return f.inner.View()
	}
	v := f.list.View()
	if f.err != nil {
		v += "\n" + f.list.st.bad.Render(f.list.fit("error: "+oneLine(f.err.Error())))
	}
	return v
}
