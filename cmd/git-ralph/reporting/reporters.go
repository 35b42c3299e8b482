package reporting

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
)

// Reporters sends each event to every reporter in turn: progress lines, the JSON
// stream, the log, the event hooks.
type Reporters []loop.Reporter

// Report passes e to each reporter.
func (rs Reporters) Report(e loop.Event) {
	for _, r := range rs {
		r.Report(e)
	}
}

// JSONStream is `loop --json`: one JSON object per line on w, and nothing else there.
type JSONStream struct {
	mu  sync.Mutex
	enc *EventEncoder
	w   io.Writer
}

// NewJSONStream writes the events of a loop in the repository at root to w.
func NewJSONStream(root string, w io.Writer) *JSONStream {
	return &JSONStream{enc: NewEventEncoder(root), w: w}
}

// Report writes the event's JSON line, if it is part of the stream.
func (j *JSONStream) Report(e loop.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, obj, ok := j.enc.Encode(e)
	if !ok {
		return
	}
	line, err := json.Marshal(obj)
	if err != nil {
		return // the event types are plain data: Marshal cannot fail on them
	}
	j.w.Write(redact.Bytes(append(line, '\n')))
}
