package watch

import (
	"bytes"
	"io"
	"os"

	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// maxRead bounds what one tick reads of the log: a view joining a long iteration late
// starts near its end rather than rendering megabytes it cannot show.
const maxRead = 256 << 10

// tail follows one output log as it grows, rendering its complete lines.
type tail struct {
	path    string
	r       *agentcli.Renderer
	offset  int64
	partial []byte
	// skipFirst: the read starts in the middle of a line, dropped
	skipFirst bool
}

// read renders the lines written since the last read. The loop may not have created the
// file yet, or may have started another; either is no error, only nothing new.
func (t *tail) read() []string {
	if t.path == "" || t.r == nil {
		return nil
	}
	f, err := os.Open(t.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	size := info.Size()
	if size < t.offset { // rewritten: start again
		t.offset, t.partial = 0, nil
	}
	if size-t.offset > maxRead {
		t.offset, t.partial, t.skipFirst = size-maxRead, nil, true
	}
	data, err := io.ReadAll(io.NewSectionReader(f, t.offset, size-t.offset))
	if err != nil {
		return nil
	}
	t.offset += int64(len(data))
	data = append(t.partial, data...)
	var out []string
	for {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			break
		}
		line := data[:nl]
		data = data[nl+1:]
		if t.skipFirst { // the middle of a line
			t.skipFirst = false
			continue
		}
		out = append(out, t.r.Line(line)...)
	}
	t.partial = append([]byte(nil), data...)
	return out
}
