package watch

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// key runs the key's action, or feeds the question being asked.
func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	if k.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	switch m.mode {
	case asking, searching:
		return m.typed(k)
	case confirming:
		m.mode = normal
		if k.String() == "y" || k.String() == "Y" {
			return m.run(m.actions.Cancel, "")
		}
		m.message = "not cancelled"
		return nil
	}
	if m.detail != nil {
		if ok, cmd := m.detailKey(k); ok {
			return cmd
		}
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return tea.Quit
	case key.Matches(k, m.keys.Back):
		switch {
		case m.help.ShowAll:
			m.help.ShowAll = false
			return nil
		case m.back:
			return func() tea.Msg { return backMsg{} }
		}
		return tea.Quit
	case key.Matches(k, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(k, m.keys.Pause):
		return m.run(m.actions.Pause, "")
	case key.Matches(k, m.keys.Resume):
		return m.run(m.actions.Resume, "")
	case key.Matches(k, m.keys.Checkpoint):
		return m.run(m.actions.Checkpoint, "")
	case key.Matches(k, m.keys.Inject):
		m.mode, m.input, m.message = asking, nil, ""
	case key.Matches(k, m.keys.Cancel):
		m.mode, m.message = confirming, ""
	case key.Matches(k, m.keys.Search):
		m.mode, m.input, m.message = searching, nil, ""
	case key.Matches(k, m.keys.Next):
		m.find(m.found+1, 1)
	case key.Matches(k, m.keys.Prev):
		m.find(m.found-1, -1)
	case key.Matches(k, m.keys.Focus):
		if m.focus == onList || len(m.snap.Iterations) == 0 {
			m.focus = onOutput
		} else {
			m.focus = onList
		}
	case key.Matches(k, m.keys.Open):
		return m.open()
	default:
		m.move(k)
	}
	return nil
}

// move moves the list's cursor or scrolls the output, whichever has the focus.
func (m *Model) move(k tea.KeyMsg) {
	if m.focus == onList {
		last := len(m.snap.Iterations) - 1
		switch {
		case key.Matches(k, m.keys.Up):
			m.cursor = max(m.cursor-1, 0)
		case key.Matches(k, m.keys.Down):
			m.cursor = min(m.cursor+1, last)
		case key.Matches(k, m.keys.Top):
			m.cursor = 0
		case key.Matches(k, m.keys.Bottom):
			m.cursor = last
		default:
			return
		}
		m.moved = m.cursor != last // on the newest row, the cursor follows new ones
		return
	}
	if scroll(&m.out, m.keys, k) {
		m.follow = m.out.AtBottom()
	}
}

// scroll moves a viewport for a moving key; false for any other key.
func scroll(vp *viewport.Model, keys keyMap, k tea.KeyMsg) bool {
	switch {
	case key.Matches(k, keys.Up):
		vp.ScrollUp(1)
	case key.Matches(k, keys.Down):
		vp.ScrollDown(1)
	case key.Matches(k, keys.PageUp):
		vp.PageUp()
	case key.Matches(k, keys.PageDown):
		vp.PageDown()
	case key.Matches(k, keys.Top):
		vp.GotoTop()
	case key.Matches(k, keys.Bottom):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}

// open shows the diff of the iteration under the list's cursor (the running one's live
// output is below already: Enter moves there).
func (m *Model) open() tea.Cmd {
	if m.focus != onList || m.cursor >= len(m.snap.Iterations) {
		return nil
	}
	it := m.snap.Iterations[m.cursor]
	if it.Running {
		m.focus, m.message = onOutput, "the running iteration's output is the live output; it has no diff yet"
		return nil
	}
	return m.show(it, showDiff)
}

// show opens iteration it's diff or output in the detail view and reads it.
func (m *Model) show(it Iteration, kind shown) tea.Cmd {
	m.detail = &detail{it: it, kind: kind, vp: viewport.New(m.width, 1)}
	m.detail.vp.SetContent("reading…")
	m.layout()
	return readFile(it, kind)
}

// detailKey handles the keys of the detail view: scrolling, o, Esc; false for the others.
func (m *Model) detailKey(k tea.KeyMsg) (bool, tea.Cmd) {
	d := m.detail
	switch {
	case key.Matches(k, m.keys.Back):
		m.detail = nil
	case key.Matches(k, m.keys.Switch):
		kind := showOutput
		if d.kind == showOutput {
			kind = showDiff
		}
		return true, m.show(d.it, kind)
	default:
		return scroll(&d.vp, m.keys, k), nil
	}
	return true, nil
}

// find scrolls the output to the first line holding the search from line from on,
// forwards (dir 1) or backwards (-1), going round at the ends as less does.
func (m *Model) find(from, dir int) {
	if m.query == "" {
		m.message = "no search yet: '/' asks what to find"
		return
	}
	n := len(m.lines)
	for step := range n {
		i := ((from+dir*step)%n + n) % n
		if strings.Contains(m.lines[i], m.query) {
			m.found = i
			m.out.SetYOffset(i)
			m.follow = m.out.AtBottom()
			m.message = fmt.Sprintf("/%s: line %d of %d (n next, N previous, G follows again)", m.query, i+1, n)
			return
		}
	}
	m.message = fmt.Sprintf("/%s: no line of the output holds it", m.query)
}

// typed edits the text asked for: Enter takes it, Esc drops it.
func (m *Model) typed(k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyEnter:
		was := m.mode
		m.mode = normal
		text := string(m.input)
		if was == searching {
			m.query = text
			m.setOutput()
			from := m.out.YOffset // from the top line shown; following, from the start
			if m.follow {
				from = 0
			}
			if text != "" {
				m.find(from, 1)
			}
			return nil
		}
		if strings.TrimSpace(text) == "" {
			m.message = "nothing injected: the text is empty"
			return nil
		}
		return m.run(m.actions.Inject, text)
	case tea.KeyEsc:
		if m.mode == asking {
			m.message = "nothing injected"
		}
		m.mode = normal
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
