package apiagent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// testKey is the key the tests' requests carry; no Record, result or error may show it.
const testKey = "sk-test-0123456789abcdef-secret"

// call is a tool call a scripted turn makes.
type call struct {
	name  string
	input any // marshalled; a string is sent as it is (arguments that are not JSON)
}

func (c call) args() string {
	if s, ok := c.input.(string); ok {
		return s
	}
	b, _ := json.Marshal(c.input)
	return string(b)
}

// step is one scripted answer of a mock API: a turn of the model, or a failure.
type step struct {
	thinking, text string
	calls          []call
	in, out        int64 // usage: input tokens (uncached), output tokens
	cacheRead      int64 // cache reads (Anthropic: apart; OpenAI: counted in the input it reports)
	cacheWrite     int64 // Anthropic only
	stop           string

	status  int               // an error answer: its status
	headers map[string]string // and headers
	body    string            // and body
	hang    bool              // the stream starts, then nothing comes
	cut     bool              // the stream stops in the middle of an event
	errorEv string            // the stream ends with this error event's data
	noEnd   bool              // the stream ends between events, before its last one
}

// mock is a scripted vendor API: each request takes the next step.
type mock struct {
	t      *testing.T
	proto  string
	steps  []step
	mu     sync.Mutex
	bodies []string
	heads  []http.Header
	srv    *httptest.Server
}

func newMock(t *testing.T, proto string, steps ...step) *mock {
	m := &mock{t: t, proto: proto, steps: steps}
	m.srv = httptest.NewServer(m)
	t.Cleanup(m.srv.Close)
	return m
}

// base is the URL a Request names: with /v1 for the OpenAI protocols, as their users
// write it, without for Anthropic.
func (m *mock) base() string {
	if m.proto == Anthropic {
		return m.srv.URL
	}
	return m.srv.URL + "/v1"
}

func (m *mock) requests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.bodies)
}

func (m *mock) body(i int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bodies[i]
}

var mockPaths = map[string]string{Anthropic: "/v1/messages", Responses: "/v1/responses", Chat: "/v1/chat/completions"}

func (m *mock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	n := len(m.bodies)
	m.bodies = append(m.bodies, string(body))
	m.heads = append(m.heads, r.Header.Clone())
	m.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != mockPaths[m.proto] {
		m.t.Errorf("the mock got %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	if n >= len(m.steps) {
		m.t.Errorf("request %d: the script has only %d steps", n+1, len(m.steps))
		http.Error(w, "no more steps", http.StatusTeapot)
		return
	}
	s := m.steps[n]
	if s.status != 0 {
		for k, v := range s.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		io.WriteString(w, s.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w}
	switch {
	case s.hang:
		sw.event("", `{"type":"ping"}`)
		<-r.Context().Done()
		return
	case s.cut:
		sw.raw("event: message_start\ndata: {\"type\":\"mess")
		return
	}
	switch m.proto {
	case Anthropic:
		anthropicTurn(sw, n, s)
	case Responses:
		responsesTurn(sw, n, s)
	case Chat:
		chatTurn(sw, n, s)
	}
}

// sseWriter writes server-sent events, flushed one by one.
type sseWriter struct{ w http.ResponseWriter }

func (s *sseWriter) event(name string, data any) {
	var text string
	switch d := data.(type) {
	case string:
		text = d
	default:
		b, _ := json.Marshal(d)
		text = string(b)
	}
	if name != "" {
		s.raw("event: " + name + "\n")
	}
	s.raw("data: " + text + "\n\n")
}

func (s *sseWriter) raw(text string) {
	io.WriteString(s.w, text)
	s.w.(http.Flusher).Flush()
}

// halves splits s in two, so that every text and argument arrives in more than one delta.
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	return []string{s[:len(s)/2], s[len(s)/2:]}
}

type obj = map[string]any

// anthropicTurn streams a step as the Messages API does.
func anthropicTurn(w *sseWriter, n int, s step) {
	w.event("message_start", obj{"type": "message_start", "message": obj{"id": fmt.Sprint("msg_", n), "type": "message",
		"role": "assistant", "content": []any{}, "model": "claude-test", "stop_reason": nil,
		"usage": obj{"input_tokens": s.in, "cache_read_input_tokens": s.cacheRead, "cache_creation_input_tokens": s.cacheWrite, "output_tokens": 1}}})
	w.event("ping", obj{"type": "ping"})
	i := 0
	block := func(start obj, deltas ...obj) {
		w.event("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": start})
		for _, d := range deltas {
			w.event("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": d})
		}
		w.event("content_block_stop", obj{"type": "content_block_stop", "index": i})
		i++
	}
	if s.thinking != "" {
		block(obj{"type": "thinking", "thinking": "", "signature": ""},
			obj{"type": "thinking_delta", "thinking": s.thinking}, obj{"type": "signature_delta", "signature": "c2ln"})
	}
	if s.text != "" {
		var deltas []obj
		for _, part := range halves(s.text) {
			deltas = append(deltas, obj{"type": "text_delta", "text": part})
		}
		block(obj{"type": "text", "text": ""}, deltas...)
	}
	stop := "end_turn"
	for j, c := range s.calls {
		var deltas []obj
		for _, part := range halves(c.args()) {
			deltas = append(deltas, obj{"type": "input_json_delta", "partial_json": part})
		}
		block(obj{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", n, j), "name": c.name, "input": obj{}}, deltas...)
		stop = "tool_use"
	}
	if s.stop != "" {
		stop = s.stop
	}
	if s.noEnd {
		return
	}
	if s.errorEv != "" {
		w.event("error", s.errorEv)
		return
	}
	w.event("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil}, "usage": obj{"output_tokens": s.out}})
	w.event("message_stop", obj{"type": "message_stop"})
}

// responsesTurn streams a step as the Responses API does.
func responsesTurn(w *sseWriter, n int, s step) {
	send := func(name string, data obj) {
		data["type"] = name
		w.event(name, data)
	}
	resp := func(status string) obj {
		return obj{"id": fmt.Sprint("resp_", n), "object": "response", "status": status, "model": "gpt-test", "output": []any{}}
	}
	send("response.created", obj{"response": resp("in_progress")})
	out := 0
	item := func(added, done obj, deltas ...obj) {
		send("response.output_item.added", obj{"output_index": out, "item": added})
		for _, d := range deltas {
			name := d["type"].(string)
			d["output_index"] = out
			send(name, d)
		}
		send("response.output_item.done", obj{"output_index": out, "item": done})
		out++
	}
	if s.thinking != "" {
		id := fmt.Sprint("rs_", n)
		item(obj{"type": "reasoning", "id": id, "summary": []any{}},
			obj{"type": "reasoning", "id": id, "summary": []any{obj{"type": "summary_text", "text": s.thinking}}, "encrypted_content": "ZW5j"},
			obj{"type": "response.reasoning_summary_text.delta", "delta": s.thinking})
	}
	if s.text != "" {
		id := fmt.Sprint("msg_", n)
		var deltas []obj
		for _, part := range halves(s.text) {
			deltas = append(deltas, obj{"type": "response.output_text.delta", "item_id": id, "content_index": 0, "delta": part})
		}
		item(obj{"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}},
			obj{"type": "message", "id": id, "role": "assistant", "status": "completed",
				"content": []any{obj{"type": "output_text", "text": s.text, "annotations": []any{}}}}, deltas...)
	}
	for j, c := range s.calls {
		id, callID := fmt.Sprintf("fc_%d_%d", n, j), fmt.Sprintf("call_%d_%d", n, j)
		var deltas []obj
		for _, part := range halves(c.args()) {
			deltas = append(deltas, obj{"type": "response.function_call_arguments.delta", "item_id": id, "delta": part})
		}
		item(obj{"type": "function_call", "id": id, "call_id": callID, "name": c.name, "arguments": "", "status": "in_progress"},
			obj{"type": "function_call", "id": id, "call_id": callID, "name": c.name, "arguments": c.args(), "status": "completed"}, deltas...)
	}
	if s.noEnd {
		return
	}
	if s.errorEv != "" {
		w.event("error", s.errorEv)
		return
	}
	done := resp("completed")
	done["usage"] = obj{"input_tokens": s.in + s.cacheRead, "input_tokens_details": obj{"cached_tokens": s.cacheRead},
		"output_tokens": s.out, "output_tokens_details": obj{"reasoning_tokens": 0}, "total_tokens": s.in + s.cacheRead + s.out}
	send("response.completed", obj{"response": done})
}

// chatTurn streams a step as the Chat Completions API does.
func chatTurn(w *sseWriter, n int, s step) {
	chunk := func(delta obj, finish any) {
		w.event("", obj{"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": "local-test",
			"choices": []any{obj{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(obj{"role": "assistant", "content": ""}, nil)
	for _, part := range halves(s.thinking) {
		if part != "" {
			chunk(obj{"reasoning_content": part}, nil)
		}
	}
	for _, part := range halves(s.text) {
		if part != "" {
			chunk(obj{"content": part}, nil)
		}
	}
	finish := "stop"
	for j, c := range s.calls {
		chunk(obj{"tool_calls": []any{obj{"index": j, "id": fmt.Sprintf("call_%d_%d", n, j), "type": "function",
			"function": obj{"name": c.name, "arguments": ""}}}}, nil)
		for _, part := range halves(c.args()) {
			chunk(obj{"tool_calls": []any{obj{"index": j, "function": obj{"arguments": part}}}}, nil)
		}
		finish = "tool_calls"
	}
	if s.noEnd {
		return
	}
	if s.errorEv != "" {
		w.event("", s.errorEv)
		return
	}
	chunk(obj{}, finish)
	w.event("", obj{"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": []any{},
		"usage": obj{"prompt_tokens": s.in + s.cacheRead, "completion_tokens": s.out, "total_tokens": s.in + s.cacheRead + s.out,
			"prompt_tokens_details": obj{"cached_tokens": s.cacheRead}}})
	w.event("", "[DONE]")
}

// runMock runs an iteration against m in work tree dir, with quick retries and the
// exchange kept.
func runMock(t *testing.T, m *mock, dir string, edit func(*Request)) (Result, error, []Record, string) {
	t.Helper()
	var out strings.Builder
	req := Request{Protocol: m.proto, Model: "test-model", BaseURL: m.base(), Key: testKey, WorkTree: dir,
		Prompt: "Add hello.txt and commit it.", Backoff: 10e6, Out: &lockedWriter{w: &out}}
	if edit != nil {
		edit(&req)
	}
	res, err := Run(context.Background(), req)
	text := out.String()
	if strings.Contains(text, testKey) {
		t.Errorf("the exchange shows the key:\n%s", text)
	}
	if err != nil && strings.Contains(err.Error(), testKey) {
		t.Errorf("the error shows the key: %v", err)
	}
	return res, err, parseRecords(t, text), text
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// parseRecords reads the exchange's lines, failing the test on a line that is not a Record.
func parseRecords(t *testing.T, text string) []Record {
	t.Helper()
	var recs []Record
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			continue
		}
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Type == "" {
			t.Fatalf("a line of the exchange is not a record (%v): %s", err, line)
		}
		recs = append(recs, r)
	}
	return recs
}

// ofType are the records of a type.
func ofType(recs []Record, typ string) []Record {
	var found []Record
	for _, r := range recs {
		if r.Type == typ {
			found = append(found, r)
		}
	}
	return found
}
