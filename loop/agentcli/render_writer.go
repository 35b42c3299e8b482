package agentcli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/git-ralph/git-ralph/units"
)

// maxRenderLine is the longest raw line a RenderWriter holds to render: a tool result
// carrying a whole file can be megabytes on one line. A longer line is not parsed; it
// shows as its size.
const maxRenderLine = 8 << 20

// RenderWriter renders a raw output stream, written in pieces of any size, onto w: it
// splits the stream into lines, renders each with a Renderer, and writes the rendered
// lines, each ended by a line break. A line cut short stays held until its end arrives
// or Flush is called. Writes report the whole input taken even when w fails, so that a
// closed terminal never stops the stream it copies.
type RenderWriter struct {
	w       io.Writer
	format  Format
	r       *Renderer
	pending []byte
	over    int64 // bytes of the current line past maxRenderLine, dropped
}

// NewRenderWriter renders output of format f onto w.
func NewRenderWriter(w io.Writer, f Format) *RenderWriter {
	return &RenderWriter{w: w, format: f, r: NewRenderer(f)}
}

// Write takes p and writes the lines it completes, rendered.
func (rw *RenderWriter) Write(p []byte) (int, error) {
	n := len(p)
	var out []string
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		piece := p
		if i >= 0 {
			piece = p[:i]
		}
		rw.hold(piece)
		if i < 0 {
			break
		}
		out = append(out, rw.line()...)
		p = p[i+1:]
	}
	return n, rw.emit(out)
}

// hold keeps piece as part of the current line, up to maxRenderLine.
func (rw *RenderWriter) hold(piece []byte) {
	room := maxRenderLine - len(rw.pending)
	if rw.over > 0 || len(piece) > room {
		keep := max(0, min(room, len(piece)))
		rw.pending = append(rw.pending, piece[:keep]...)
		rw.over += int64(len(piece) - keep)
		return
	}
	rw.pending = append(rw.pending, piece...)
}

// line renders the line held and starts the next one.
func (rw *RenderWriter) line() []string {
	var out []string
	if rw.over > 0 {
		size := int64(len(rw.pending)) + rw.over
		out = []string{fmt.Sprintf("[a line of %s, too long to show]", units.Size(size))}
	} else {
		out = rw.r.Line(rw.pending)
	}
	rw.pending, rw.over = rw.pending[:0], 0
	if cap(rw.pending) > 1<<20 {
		rw.pending = nil // let a huge line's buffer go
	}
	return out
}

// Flush ends one run's output: it renders the line still held (shown raw when it is
// not a whole event) and the agent's text the renderer holds back. What is written next
// is another run's output, rendered afresh (its own usage, its own errors).
func (rw *RenderWriter) Flush() error {
	var out []string
	if len(rw.pending) > 0 || rw.over > 0 {
		out = rw.line()
	}
	out = append(out, rw.r.End()...)
	rw.r = NewRenderer(rw.format)
	return rw.emit(out)
}

func (rw *RenderWriter) emit(lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, err := rw.w.Write(b.Bytes())
	return err
}
