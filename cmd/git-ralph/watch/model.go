// Package watch is the full-screen terminal view of one loop, `git ralph watch`: a
// bubbletea model that shows what the loop writes (its state, its run's iterations and
// the live output log of the running iteration, rendered by loop/agentcli) and steers it
// through the actions the commands use. It reads files only, so watching never slows or
// blocks the loop. Every read runs in a tea.Cmd that returns a message: Update only folds
// messages into the model, and View only draws it.
package watch

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/livelog"
)

// Source reads a Snapshot; it is called every tick.
type Source func() (Snapshot, error)

// Action steers the loop (pause, resume, …) and says what it did in one line.
type Action func(text string) (string, error)

// Actions are the keys' actions: the code the commands of the same names run.
type Actions struct {
	Pause, Resume, Inject, Checkpoint, Cancel Action
}

// Tick is how often the view reads the loop's files.
const Tick = 500 * time.Millisecond

// keep bounds the rendered output lines held for scrolling back.
const keep = 5000

type mode int

const (
	normal     mode = iota
	asking          // inject: reading the text
	confirming      // cancel: y or n
	searching       // '/': reading what to find in the output
)

type focus int

const (
	onOutput focus = iota
	onList
)

// Model is the view's state.
type Model struct {
	actions Actions
	st      styles
	keys    keyMap
	help    help.Model

	width, height int
	snap          Snapshot
	err           error
	reader        *reader
	lines         []string
	message       string
	mode          mode
	input         []rune

	focus  focus
	cursor int  // the iterations list's row
	moved  bool // the cursor was moved: it stays, else it follows the newest row
	out    viewport.Model
	follow bool   // the output keeps its end in sight as it grows
	back   bool   // in the fleet view: Esc with nothing to close goes back to the list
	query  string // the last search
	found  int    // the output line it found last
	detail *detail
}

// detail is one iteration's diff or output, filling the body.
type detail struct {
	it   Iteration
	kind shown
	vp   viewport.Model
	err  error
}

// New returns the view of the loop source reads, steered by actions; color false (NO_COLOR)
// leaves every escape code out of what it draws.
func New(source Source, actions Actions, color bool) *Model {
	m := &Model{actions: actions, st: newStyles(color), keys: newKeys(), width: 80, height: 24,
		reader: &reader{source: source}, follow: true, out: viewport.New(80, 10)}
	m.out.MouseWheelEnabled = true
	m.help = help.New()
	m.help.ShortSeparator = "  "
	m.help.Styles = help.Styles{
		ShortKey: m.st.bold, ShortDesc: m.st.dim, ShortSeparator: m.st.dim, Ellipsis: m.st.dim,
		FullKey: m.st.bold, FullDesc: m.st.dim, FullSeparator: m.st.dim,
	}
	return m
}

// tickMsg and loadedMsg name the reader they are for: the fleet view drops a loop's view
// and may open another, and a message of the one dropped must not feed the new one.
type tickMsg struct{ r *reader }

// loadedMsg is one read of the loop: its snapshot and the output lines written since the
// last read (reset: the output is another log's, the lines held so far are dropped).
type loadedMsg struct {
	r     *reader
	snap  Snapshot
	err   error
	lines []string
	reset bool
}

// reader reads the loop for the view, off the update loop. One read runs at a time (the
// next tick is asked for once its message is folded), so the tail it follows is its own.
type reader struct {
	source Source
	tail   *livelog.Tail
}

// read reads the snapshot and the output that grew since the last read.
func (r *reader) read() tea.Msg {
	snap, err := r.source()
	if err != nil {
		return loadedMsg{r: r, err: err}
	}
	msg := loadedMsg{r: r, snap: snap}
	if r.tail.Path() != snap.Output {
		r.tail, msg.reset = livelog.New(snap.Output, snap.Format), true
	}
	msg.lines = r.tail.Read()
	return msg
}

type doneMsg struct {
	text string
	err  error
}

func (m *Model) tick() tea.Cmd {
	r := m.reader
	return tea.Tick(Tick, func(time.Time) tea.Msg { return tickMsg{r: r} })
}

// Init reads the loop at once, then every Tick.
func (m *Model) Init() tea.Cmd { return m.reader.read }

// mine: a message of this view's reader (nil: of any, as the tests send them).
func (m *Model) mine(r *reader) bool { return r == nil || r == m.reader }

// Update folds messages into the model: ticks, reads, keys, the mouse, window sizes and
// the actions' results.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tickMsg:
		if !m.mine(msg.r) {
			return m, nil
		}
		return m, m.reader.read
	case loadedMsg:
		if !m.mine(msg.r) {
			return m, nil
		}
		m.loaded(msg)
		cmd = m.tick()
	case fileMsg:
		m.file(msg)
	case doneMsg:
		m.message = msg.text
		if msg.err != nil {
			m.message = "error: " + oneLine(msg.err.Error())
		}
	case tea.MouseMsg:
		m.mouse(msg)
	case tea.KeyMsg:
		cmd = m.key(msg)
	}
	m.layout()
	return m, cmd
}

// live: the loop runs (or holds on a pause or a limit) and a key's answer is about it.
func live(s State) bool { return s == Running || s == Pausing || s == Paused || s == Waiting }

// loaded folds one read of the loop into the model.
func (m *Model) loaded(msg loadedMsg) {
	m.err = msg.err
	if msg.err != nil {
		return
	}
	if live(m.snap.State) && !live(msg.snap.State) {
		m.message = "" // the answer was about a loop that has ended since
	}
	m.snap = msg.snap
	m.keys.state = m.snap.State
	if !m.moved || m.cursor >= len(m.snap.Iterations) {
		m.cursor, m.moved = max(len(m.snap.Iterations)-1, 0), false
	}
	if !msg.reset && len(msg.lines) == 0 {
		return
	}
	if msg.reset {
		m.lines = nil
	}
	m.lines = append(m.lines, msg.lines...)
	if len(m.lines) > keep {
		m.lines = append([]string(nil), m.lines[len(m.lines)-keep:]...)
	}
	m.setOutput()
}

// setOutput puts the output lines in their viewport, the search's matches marked.
func (m *Model) setOutput() {
	lines := m.lines
	if m.query != "" {
		lines = make([]string, len(m.lines))
		for i, l := range m.lines {
			lines[i] = strings.ReplaceAll(l, m.query, m.st.match.Render(m.query))
		}
	}
	m.out.SetContent(strings.Join(lines, "\n"))
	if m.follow {
		m.out.GotoBottom()
	}
}

// file shows an iteration's diff or output read for the detail view.
func (m *Model) file(msg fileMsg) {
	d := m.detail
	if d == nil || d.it.N != msg.n || d.kind != msg.kind {
		return // the user went elsewhere meanwhile
	}
	d.err = msg.err
	lines := msg.lines
	if d.kind == showDiff {
		lines = make([]string, len(msg.lines))
		for i, l := range msg.lines {
			lines[i] = m.diffLine(l)
		}
	}
	if len(lines) == 0 && msg.err == nil {
		lines = []string{m.nothing(d)}
	}
	d.vp.SetContent(strings.Join(lines, "\n"))
}

// nothing says why the detail view is empty.
func (m *Model) nothing(d *detail) string {
	switch {
	case d.kind == showDiff && d.it.Diff == "":
		return "(no diff kept: the history's retention settings pruned it)"
	case d.kind == showDiff:
		return "(the iteration changed nothing)"
	case d.it.Output == "":
		return "(no output kept: the history's retention settings pruned it)"
	}
	return "(the iteration wrote no output)"
}

// diffLine colours a diff's line: added green, removed red, hunks cyan, files bold.
func (m *Model) diffLine(l string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
		return m.st.bold.Render(l)
	case strings.HasPrefix(l, "+"):
		return m.st.ok.Render(l)
	case strings.HasPrefix(l, "-"):
		return m.st.bad.Render(l)
	case strings.HasPrefix(l, "@@"):
		return m.st.info.Render(l)
	}
	return l
}

// mouse scrolls what is under the wheel: the detail, else the output.
func (m *Model) mouse(msg tea.MouseMsg) {
	if m.detail != nil {
		m.detail.vp.MouseWheelEnabled = true
		m.detail.vp, _ = m.detail.vp.Update(msg)
		return
	}
	m.out, _ = m.out.Update(msg)
	m.follow = m.out.AtBottom()
}

// oneLine folds whitespace and line breaks: an answer takes one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
