package launch

import (
	"bytes"
	"strings"
	"sync"
)

// errorLines keeps the last "error: …" line a stage's loop printed and the "hint: …"
// lines after it, so that the workflow's state can say why the loop stopped when the
// loop's own state cannot (it refused to start). It passes nothing on: it is a copy.
type errorLines struct {
	mu      sync.Mutex
	partial []byte
	last    []string
	open    bool // the lines after an error: line are its hints
}

const (
	errorLineMax  = 500  // bytes kept of one line
	errorLinesMax = 6    // lines kept of one error with its hints
	partialMax    = 4096 // bytes of an unfinished line held; the rest is not an error line
)

func (e *errorLines) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rest := p
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			if len(e.partial) < partialMax {
				e.partial = append(e.partial, rest[:min(len(rest), partialMax-len(e.partial))]...)
			}
			return len(p), nil
		}
		e.partial = append(e.partial, rest[:min(i, partialMax)]...)
		e.line(string(e.partial))
		e.partial, rest = e.partial[:0], rest[i+1:]
	}
}

func (e *errorLines) line(text string) {
	text = strings.TrimRight(text, "\r")
	if len(text) > errorLineMax {
		text = text[:errorLineMax] + "…"
	}
	switch {
	case strings.HasPrefix(text, "error: "):
		e.last, e.open = []string{text}, true
	case e.open && strings.HasPrefix(text, "hint: ") && len(e.last) < errorLinesMax:
		e.last = append(e.last, text)
	default:
		e.open = false
	}
}

// String is the last error with its hints, one a line; "" when there was none.
func (e *errorLines) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.last, "\n")
}
