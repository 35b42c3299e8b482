package main

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
)

// reporters sends each event to every reporter in turn: progress lines, the JSON
// stream, the log, the event hooks.
type reporters []loop.Reporter

func (rs reporters) Report(e loop.Event) {
	for _, r := range rs {
		r.Report(e)
	}
}

// jsonStream is `loop --json`: one JSON object per line on w, and nothing else there.
type jsonStream struct {
	mu  sync.Mutex
	enc *eventEncoder
	w   io.Writer
}

func (j *jsonStream) Report(e loop.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, obj, ok := j.enc.encode(e)
	if !ok {
		return
	}
	line, err := json.Marshal(obj)
	if err != nil {
		return // the event types are plain data: Marshal cannot fail on them
	}
	j.w.Write(redact.Bytes(append(line, '\n')))
}
