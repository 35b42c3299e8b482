package apiagent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEvent bounds one server-sent event (a line, or an event's data lines together): a
// server that sends an endless line is stopped there rather than filling memory. Every
// vendor streams a tool call's input in many small deltas, so real events are far smaller.
const maxEvent = 8 << 20

// errCut is a stream that ended in the middle of an event.
var errCut = errors.New("the stream ended in the middle of an event")

// event is one server-sent event: its name ("" when it had no event: line) and its data
// lines joined by newlines.
type event struct {
	name string
	data []byte
}

// sseReader reads server-sent events (the text/event-stream format) one at a time.
type sseReader struct {
	r *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next is the next event with data. It returns io.EOF when the stream ended between
// events, errCut when it ended within one, and the reader's error otherwise. Comments
// (": ping") and events without data are skipped, as the format says.
func (s *sseReader) next() (event, error) {
	var ev event
	var data bytes.Buffer
	hasData, pending := false, false
	for {
		line, err := s.line()
		if err != nil {
			if err == io.EOF && (pending || len(line) > 0) {
				return event{}, errCut
			}
			return event{}, err
		}
		if len(line) == 0 { // the blank line ends an event
			if hasData {
				ev.data = data.Bytes()
				return ev, nil
			}
			ev, pending = event{}, false
			continue
		}
		pending = true
		field, value := splitField(line)
		switch field {
		case "event":
			ev.name = string(value)
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			if data.Len()+len(value) > maxEvent {
				return event{}, fmt.Errorf("an event of the stream is over %d MiB", maxEvent>>20)
			}
			data.Write(value)
			hasData = true
		}
	}
}

// line is the next line without its end (\n, \r\n); at the end of the stream, what was
// left with io.EOF.
func (s *sseReader) line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(line)+len(chunk) > maxEvent {
			return nil, fmt.Errorf("a line of the stream is over %d MiB", maxEvent>>20)
		}
		line = append(line, chunk...)
		switch err {
		case nil:
			line = bytes.TrimSuffix(line[:len(line)-1], []byte{'\r'})
			return line, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return line, err
		}
	}
}

// splitField splits "field: value" (one space after the colon is dropped); a line that
// starts with a colon is a comment, whose field is "".
func splitField(line []byte) (string, []byte) {
	name, value, found := bytes.Cut(line, []byte{':'})
	if !found {
		return string(line), nil
	}
	return string(name), bytes.TrimPrefix(value, []byte{' '})
}
