package apiagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzSSEReader reads any bytes as a stream of events: it never panics nor loops, every
// event it gives has data, and the stream ends in io.EOF, errCut or a bound's error.
func FuzzSSEReader(f *testing.F) {
	for _, seed := range []string{
		"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
		"data: a\r\ndata: b\r\n\r\n: comment\n\ndata: [DONE]\n\n",
		"event: x\ndata: {\"type\":\"mess",
		"data:no space\n\nid: 1\nretry: 10\n\n",
		"\n\n\n", "data", "event: only\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newSSEReader(bytes.NewReader(data))
		for i := 0; ; i++ {
			ev, err := s.next()
			if err != nil {
				if err != io.EOF && !errors.Is(err, errCut) && !strings.Contains(err.Error(), "MiB") {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if !bytes.Contains(data, []byte("data")) {
				t.Fatalf("an event %q from a stream without data", ev.data)
			}
			if i > len(data) {
				t.Fatalf("more events than bytes")
			}
		}
	})
}

// FuzzSSEStreams reads any bytes as each protocol's answer: the reader never panics, and
// when it says the answer is whole, the conversation it leaves makes a valid request and
// its calls are recorded as valid JSON lines.
func FuzzSSEStreams(f *testing.F) {
	for _, proto := range protocols {
		for _, s := range everyTool() {
			var b bytes.Buffer
			w := &sseWriter{w: &recorderFlusher{&b}}
			switch proto {
			case Anthropic:
				anthropicTurn(w, 1, s)
			case Responses:
				responsesTurn(w, 1, s)
			case Chat:
				chatTurn(w, 1, s)
			}
			f.Add(proto, b.Bytes())
		}
	}
	f.Add(Chat, []byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":{\"arguments\":\"{\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n"))
	f.Add(Anthropic, []byte("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":-1,\"content_block\":{\"type\":\"tool_use\"}}\n\n"))
	f.Fuzz(func(t *testing.T, proto string, data []byte) {
		p, ok := newProtocol(proto)
		if !ok {
			return
		}
		p.begin("system", "prompt", toolSpecs)
		rep, err := p.read(newSSEReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		var out bytes.Buffer
		rec := &recorder{w: &out, start: time.Now(), scrub: scrubber(testKey)}
		for _, c := range rep.Calls {
			rec.write(Record{Type: RecToolCall, ID: c.ID, Name: c.Name, Input: rawInput(c.Input)})
		}
		for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
			if line != "" && !json.Valid([]byte(line)) {
				t.Fatalf("a record is not JSON: %s", line)
			}
		}
		results := make([]toolResult, len(rep.Calls))
		for i, c := range rep.Calls {
			results[i] = toolResult{Call: c, Output: "ok"}
		}
		p.answer(results)
		body, err := p.body("m", 100)
		if err != nil || !json.Valid(body) {
			t.Fatalf("the next request is not JSON (%v): %s", err, body)
		}
	})
}

// FuzzErrorBodies classifies any error body without panicking, always with a message.
func FuzzErrorBodies(f *testing.F) {
	for _, seed := range []string{anthropicRateLimit, openAIQuota, llamaContext, ollamaNoModel, "", "null", `{"error":null}`, `{"error":{"code":[1]}}`} {
		f.Add(429, []byte(seed))
		f.Add(500, []byte(seed))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := classify(status, nil, parseAPIError(body), time.Now())
		if e.Kind == 0 || e.Error() == "" {
			t.Fatalf("classified as %v: %q", e.Kind, e.Error())
		}
	})
}

// recorderFlusher is a writer with the http.ResponseWriter's methods sseWriter uses.
type recorderFlusher struct{ w io.Writer }

func (r *recorderFlusher) Header() http.Header         { return http.Header{} }
func (r *recorderFlusher) Write(p []byte) (int, error) { return r.w.Write(p) }
func (r *recorderFlusher) WriteHeader(int)             {}
func (r *recorderFlusher) Flush()                      {}
