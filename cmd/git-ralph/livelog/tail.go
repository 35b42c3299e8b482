package livelog

import (
	"bytes"
	"fmt"
	"io"

	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// MaxRead bounds what one read takes of the log: a view joining a long iteration late
// starts near its end rather than rendering megabytes it cannot show.
const MaxRead = 256 << 10

// MaxLine bounds the unfinished line a tail holds back until its line break: a progress
// bar redrawn with \r for hours, or an agent writing without line breaks, would otherwise
// grow it without end in every view. It is far above any event a preset's agent writes.
const MaxLine = 4 << 20

// Tail follows one output log as it grows, rendering its complete lines with a Renderer
// of its own (one per log: a renderer holds the state of the stream it reads).
type Tail struct {
	path    string
	r       *agentcli.Renderer
	offset  int64
	partial []byte
	// skipFirst: the read starts in the middle of a line, dropped
	skipFirst bool
}

// New follows the log at path, written by an agent of the given output format; an empty
// path follows nothing.
func New(path string, format agentcli.Format) *Tail {
	return &Tail{path: path, r: agentcli.NewRenderer(format)}
}

// Path is the log it follows.
func (t *Tail) Path() string {
	if t == nil {
		return ""
	}
	return t.path
}

// Read renders the lines written since the last read. The loop may not have created the
// file yet, or may have started another; either is no error, only nothing new.
func (t *Tail) Read() []string {
	if t == nil || t.path == "" {
		return nil
	}
	data := t.grown()
	if data == nil {
		return nil
	}
	data = append(t.partial, data...)
	t.partial = nil
	if t.skipFirst { // the middle of a line, dropped up to its end
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return nil
		}
		data, t.skipFirst = data[nl+1:], false
	}
	var out []string
	for {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			break
		}
		out = append(out, t.r.Line(data[:nl])...)
		data = data[nl+1:]
	}
	if len(data) > MaxLine {
		t.skipFirst = true
		return append(out, fmt.Sprintf("… a line of more than %d MiB, left out", MaxLine>>20))
	}
	t.partial = append([]byte(nil), data...)
	return out
}

// grown is what was written since the last read, at most MaxRead of its end; nil when
// nothing was or the log cannot be read. It is opened as git-ralph's own file: a
// repository can commit a symlink in its place (to ~/.ssh/id_rsa) or an agent leave a
// FIFO there, neither of which is followed or waited on.
func (t *Tail) grown() []byte {
	f, err := repofile.OpenOwn(t.path, t.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil
	}
	size := info.Size()
	if size < t.offset { // rewritten: start again
		t.offset, t.partial = 0, nil
	}
	if size-t.offset > MaxRead {
		t.offset, t.partial, t.skipFirst = size-MaxRead, nil, true
	}
	data, err := io.ReadAll(io.NewSectionReader(f, t.offset, size-t.offset))
	if err != nil || len(data) == 0 {
		return nil
	}
	t.offset += int64(len(data))
	return data
}
