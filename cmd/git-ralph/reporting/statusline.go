package reporting

import (
	"io"
	"sync"
	"time"
)

// ticker redraws one status line on a terminal every second until stopped, or until
// its time is up when it has one.
type ticker struct {
	done chan struct{}
	over chan struct{}
}

// startTicker draws status() every second; a limit > 0 ends it (clearing the line)
// after that long.
func startTicker(w io.Writer, limit time.Duration, status func() string) *ticker {
	t := &ticker{done: make(chan struct{}), over: make(chan struct{})}
	go func() {
		defer close(t.over)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		var end <-chan time.Time // nil: no limit
		if limit > 0 {
			timer := time.NewTimer(limit)
			defer timer.Stop()
			end = timer.C
		}
		for {
			drawStatus(w, status())
			select {
			case <-t.done:
				drawStatus(w, "")
				return
			case <-end:
				drawStatus(w, "")
				return
			case <-tick.C:
			}
		}
	}()
	return t
}

// statusDrawer is a stream that draws the status line itself, so that it can clear it
// before anything else is written there: a hook's warning or a signal's notice, written
// from another goroutine, then starts on a line of its own.
type statusDrawer interface {
	drawStatus(text string) // "" clears the line
}

// drawStatus draws text as the status line of w, or clears it when text is "".
func drawStatus(w io.Writer, text string) {
	if d, ok := w.(statusDrawer); ok {
		d.drawStatus(text)
		return
	}
	io.WriteString(w, statusText(text))
}

// statusText is what draws text as the status line: back to the line's start, the
// text, and the rest of the line erased.
func statusText(text string) string {
	if text == "" {
		return "\r\x1b[K"
	}
	return "\r  " + text + " \x1b[K"
}

// stop ends the ticker and clears its line; a nil ticker is a no-op.
func (t *ticker) stop() {
	if t == nil {
		return
	}
	select {
	case <-t.done:
	default:
		close(t.done)
	}
	<-t.over
}

// LockedWriter serialises writes from the loop's reporter, the signal watcher and the
// event hooks' goroutine. It also draws the terminal's status line (statusDrawer), so
// that any other write clears that line first instead of being appended to it.
type LockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	status bool // a status line is drawn and the cursor is at its end
}

// NewLockedWriter serialises the writes to w.
func NewLockedWriter(w io.Writer) *LockedWriter { return &LockedWriter{w: w} }

func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearStatus()
	return l.w.Write(p)
}

// drawStatus draws text as the status line, or clears it when text is "".
func (l *LockedWriter) drawStatus(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if text == "" {
		l.clearStatus()
		return
	}
	io.WriteString(l.w, statusText(text))
	l.status = true
}

// clearStatus erases the status line if one is drawn; l.mu is held.
func (l *LockedWriter) clearStatus() {
	if l.status {
		io.WriteString(l.w, statusText(""))
		l.status = false
	}
}
