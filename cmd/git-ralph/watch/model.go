// Package watch is the full-screen terminal view of one loop, `git ralph watch`: a
// bubbletea model that shows what the loop writes (its state and the live output log of the
// running iteration, rendered by loop/agentcli) and steers it through the actions the
// commands use. It reads files only, so watching never slows or blocks the loop. Every
// read runs in a tea.Cmd that returns a message: Update only folds messages into the
// model, and View only draws it.
package watch

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

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

// keep bounds the rendered lines held: more than any terminal shows.
const keep = 1000

type mode int

const (
	normal     mode = iota
	asking          // inject: reading the text
	confirming      // cancel: y or n
)

// Model is the view's state.
type Model struct {
	actions Actions
	st      styles

	width, height int
	snap          Snapshot
	err           error
	reader        *reader
	lines         []string
	message       string
	mode          mode
	input         []rune
}

// New returns the view of the loop source reads, steered by actions; color false (NO_COLOR)
// leaves every escape code out of what it draws.
func New(source Source, actions Actions, color bool) *Model {
	return &Model{actions: actions, st: newStyles(color), width: 80, height: 24, reader: &reader{source: source}}
}

type tickMsg struct{}

// loadedMsg is one read of the loop: its snapshot and the output lines written since the
// last read (reset: the output is another log's, the lines held so far are dropped).
type loadedMsg struct {
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
		return loadedMsg{err: err}
	}
	msg := loadedMsg{snap: snap}
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

func tick() tea.Cmd { return tea.Tick(Tick, func(time.Time) tea.Msg { return tickMsg{} }) }

// Init reads the loop at once, then every Tick.
func (m *Model) Init() tea.Cmd { return func() tea.Msg { return tickMsg{} } }

// Update handles ticks, keys, window sizes and the actions' results.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tickMsg:
		return m, m.reader.read
	case loadedMsg:
		m.loaded(msg)
		return m, tick()
	case doneMsg:
		m.message = msg.text
		if msg.err != nil {
			m.message = "error: " + oneLine(msg.err.Error())
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// loaded folds one read of the loop into the model.
func (m *Model) loaded(msg loadedMsg) {
	m.err = msg.err
	if msg.err != nil {
		return
	}
	m.snap = msg.snap
	if msg.reset {
		m.lines = nil
	}
	m.lines = append(m.lines, msg.lines...)
	if len(m.lines) > keep {
		m.lines = append([]string(nil), m.lines[len(m.lines)-keep:]...)
	}
}

// key runs the key's action, or feeds the question being asked.
func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	if k.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	switch m.mode {
	case asking:
		return m.typed(k)
	case confirming:
		m.mode = normal
		if k.String() == "y" || k.String() == "Y" {
			return m.run(m.actions.Cancel, "")
		}
		m.message = "not cancelled"
		return nil
	}
	switch k.String() {
	case "q", "esc":
		return tea.Quit
	case "p":
		return m.run(m.actions.Pause, "")
	case "r":
		return m.run(m.actions.Resume, "")
	case "c":
		return m.run(m.actions.Checkpoint, "")
	case "i":
		m.mode, m.input, m.message = asking, nil, ""
	case "x":
		m.mode, m.message = confirming, ""
	}
	return nil
}

// typed edits the text to inject; Enter queues it, Esc drops it.
func (m *Model) typed(k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyEnter:
		m.mode = normal
		text := string(m.input)
		if strings.TrimSpace(text) == "" {
			m.message = "nothing injected: the text is empty"
			return nil
		}
		return m.run(m.actions.Inject, text)
	case tea.KeyEsc:
		m.mode, m.message = normal, "nothing injected"
	case tea.KeyBackspace:
		if len(m.input) > 0 {
			m.input = m.input[:len(m.input)-1]
		}
	case tea.KeySpace:
		m.input = append(m.input, ' ')
	case tea.KeyRunes:
		m.input = append(m.input, k.Runes...)
	}
	return nil
}

// run runs an action off the update loop (a checkpoint runs git) and reports its result.
func (m *Model) run(a Action, text string) tea.Cmd {
	m.message = "…"
	return func() tea.Msg {
		out, err := a(text)
		return doneMsg{text: out, err: err}
	}
}

// View draws the header, the last output lines that fit, the answer line and the key bar.
func (m *Model) View() string {
	bar := m.st.bar.Render(m.fit(m.bar()))
	header := m.header()
	if m.height < len(header)+3 || m.width < 20 {
		// a small terminal: the state and the keys
		return header[0] + "\n" + bar
	}
	var b strings.Builder
	for _, h := range header {
		b.WriteString(h + "\n")
	}
	b.WriteString(m.st.dim.Render(strings.Repeat("─", m.width)) + "\n")
	room := m.height - len(header) - 3
	lines := m.lines
	if len(lines) > room {
		lines = lines[len(lines)-room:]
	}
	for _, l := range lines {
		b.WriteString(m.fit(l) + "\n")
	}
	for range room - len(lines) {
		b.WriteString("\n")
	}
	if m.message != "" && m.mode == normal {
		b.WriteString(m.fit(m.message))
	}
	b.WriteString("\n" + bar)
	return b.String()
}

// bar is the last line: the keys, or the question asked.
func (m *Model) bar() string {
	switch m.mode {
	case asking:
		return "inject (Enter queues it for the next prompt, Esc drops it): " + string(m.input)
	case confirming:
		return "cancel the loop after its current iteration? y/n"
	}
	return "p pause  r resume  i inject  c checkpoint  x cancel  q quit (the loop goes on)"
}

// fit cuts a line, styled or not, to the terminal's width, so no line wraps and the
// layout holds.
func (m *Model) fit(s string) string { return m.fitTo(s, m.width) }

// fitStyled is fit, for a line holding escape codes (fit handles both; the name says why).
func (m *Model) fitStyled(s string) string { return m.fit(s) }

func (m *Model) fitTo(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
