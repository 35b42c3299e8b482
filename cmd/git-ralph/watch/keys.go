package watch

import "github.com/charmbracelet/bubbles/key"

// keyMap is every key of the view; the help bar shows the short list, '?' all of them.
type keyMap struct {
	Pause, Resume, Inject, Checkpoint, Cancel key.Binding
	Focus, Up, Down, PageUp, PageDown         key.Binding
	Top, Bottom, Open, Switch, Back           key.Binding
	Search, Next, Prev, Help, Quit            key.Binding
	// state is the loop's, for the help bar (every key works in every state)
	state State
	// fleet: the view was opened from the fleet's list, which Esc goes back to
	fleet bool
}

func newKeys() keyMap {
	k := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Pause:      k([]string{"p"}, "p", "pause"),
		Resume:     k([]string{"r"}, "r", "resume"),
		Inject:     k([]string{"i"}, "i", "inject"),
		Checkpoint: k([]string{"c"}, "c", "checkpoint"),
		Cancel:     k([]string{"x"}, "x", "cancel"),
		Focus:      k([]string{"tab", "shift+tab"}, "tab", "focus"),
		Up:         k([]string{"up", "k"}, "↑/k", "up"),
		Down:       k([]string{"down", "j"}, "↓/j", "down"),
		PageUp:     k([]string{"pgup", "ctrl+u", "b"}, "pgup/b", "page up"),
		PageDown:   k([]string{"pgdown", "ctrl+d", " "}, "pgdn/space", "page down"),
		Top:        k([]string{"home", "g"}, "g/home", "top"),
		Bottom:     k([]string{"end", "G"}, "G/end", "bottom, follow"),
		Open:       k([]string{"enter"}, "enter", "diff"),
		Switch:     k([]string{"o"}, "o", "diff/output"),
		Back:       k([]string{"esc"}, "esc", "back"),
		Search:     k([]string{"/"}, "/", "search"),
		Next:       k([]string{"n"}, "n/N", "next/previous match"),
		Prev:       k([]string{"N"}, "N", "previous match"),
		Help:       k([]string{"?"}, "?", "all keys"),
		Quit:       k([]string{"q", "ctrl+c"}, "q", "quit"),
	}
}

// ShortHelp is the help bar: the loop's keys first, then how to see more (a narrow
// terminal cuts it from the end).
// It names the keys that mean something in the loop's state: pause while it runs,
// resume while it pauses, cancel while it lives. The others still work: a key pressed
// before the view has read the new state (p then r at once) does what it says.
func (k keyMap) ShortHelp() []key.Binding {
	var keys []key.Binding
	switch k.state {
	case Running, Waiting:
		keys = append(keys, k.Pause)
	case Pausing, Paused:
		keys = append(keys, k.Resume)
	}
	keys = append(keys, k.Inject, k.Checkpoint)
	if live(k.state) {
		keys = append(keys, k.Cancel)
	}
	if k.fleet {
		keys = append(keys, key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "all loops")))
	}
	return append(keys, k.Quit, k.Help, k.Focus, k.Open, k.Search)
}

// FullHelp is every key, by what it does: the loop, moving, reading.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pause, k.Resume, k.Inject, k.Checkpoint, k.Cancel, k.Quit},
		{k.Focus, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Open, k.Switch, k.Back, k.Search, k.Next, k.Help},
	}
}
