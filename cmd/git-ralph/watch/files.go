package watch

import (
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/livelog"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// maxDiff bounds the diff read for the view: more than anyone scrolls through.
const maxDiff = 4 << 20

type shown int

const (
	showDiff shown = iota
	showOutput
)

// fileMsg is an iteration's diff or output, read for the detail view.
type fileMsg struct {
	n     int
	kind  shown
	lines []string
	err   error
}

// readFile reads iteration it's diff or output off the update loop.
func readFile(it Iteration, kind shown) tea.Cmd {
	return func() tea.Msg {
		msg := fileMsg{n: it.N, kind: kind}
		switch {
		case kind == showOutput && it.Output != "":
			msg.lines = livelog.New(it.Output, it.Format).Read()
		case kind == showDiff && it.Diff != "":
			msg.lines, msg.err = readDiff(it.Diff)
		}
		return msg
	}
}

// readDiff reads a diff file git-ralph saved, its first maxDiff bytes.
func readDiff(path string) ([]string, error) {
	f, err := repofile.OpenOwn(path, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDiff+1))
	if err != nil {
		return nil, err
	}
	cutShort := len(data) > maxDiff
	if cutShort {
		data = data[:maxDiff]
	}
	// the diff holds what the agent wrote: its escape sequences are spelled out, never
	// sent to the terminal
	lines := strings.Split(strings.TrimRight(display.PrintableText(string(data)), "\n"), "\n")
	if cutShort {
		lines = append(lines, fmt.Sprintf("… the diff goes on past %d MiB", maxDiff>>20))
	}
	return lines, nil
}
