package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// apiTurn is one answer of the mock model API, a line of a story's script: the model's
// text and its tool calls (each a tool and its arguments), the tokens it reports, or a
// failure (an HTTP status, with a retry-after in seconds and a body).
type apiTurn struct {
	Text  string            `json:"text"`
	Calls []json.RawMessage `json:"calls"` // {"name": "bash", "args": {...}}
	In    int64             `json:"in"`
	Out   int64             `json:"out"`
	// Status, when set, answers the request with this HTTP status and Body instead.
	Status     int    `json:"status"`
	RetryAfter string `json:"retry_after"`
	Body       string `json:"body"`
}

// cmdAPIMock is `apimock NAME SCRIPT KEYVAR`: a mock of the Chat Completions API (and of
// the Messages and Responses APIs, at /v1/messages and /v1/responses) on 127.0.0.1 whose address is put in $NAME (with
// /v1). Each request gets the next turn of
// SCRIPT (a JSON object a line; the last is repeated), streamed as the API streams. Each
// request is logged to NAME.jsonl in $WORK: its number, whether it carried the key in
// $KEYVAR as its bearer token ("key": "ok", "missing" or "wrong", never the key itself)
// and the text of its last message.
func cmdAPIMock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: apimock NAME SCRIPT KEYVAR")
	}
	var turns []apiTurn
	for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var t apiTurn
		ts.Check(json.Unmarshal([]byte(line), &t))
		turns = append(turns, t)
	}
	if len(turns) == 0 {
		ts.Fatalf("apimock: %s has no turns", args[1])
	}
	key := ts.Getenv(args[2])
	record := filepath.Join(ts.Getenv("WORK"), args[0]+".jsonl")
	var mu sync.Mutex
	n := 0
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		t := turns[min(n, len(turns)-1)]
		n++
		logRequest(record, n, r, body, key)
		mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/v1/messages" && r.URL.Path != "/v1/responses" {
			http.Error(w, `{"error":{"message":"no such path"}}`, http.StatusNotFound)
			return
		}
		if t.Status != 0 {
			if t.RetryAfter != "" {
				w.Header().Set("retry-after", t.RetryAfter)
			}
			w.Header().Set("content-type", "application/json")
			w.WriteHeader(t.Status)
			io.WriteString(w, t.Body)
			return
		}
		switch r.URL.Path {
		case "/v1/messages":
			streamMessagesTurn(w, n, t)
			return
		case "/v1/responses":
			streamResponsesTurn(w, n, t)
			return
		}
		streamChatTurn(w, n, t)
	})}
	go srv.Serve(ln)
	ts.Defer(func() { srv.Close() })
	ts.Setenv(args[0], "http://"+ln.Addr().String()+"/v1")
}

// logRequest appends a line about request n to record.
func logRequest(record string, n int, r *http.Request, body []byte, key string) {
	auth := "missing"
	if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		auth = map[bool]string{true: "ok", false: "wrong"}[key != "" && got == key]
	}
	if got := r.Header.Get("x-api-key"); got != "" { // the Messages API's header
		auth = map[bool]string{true: "ok", false: "wrong"}[key != "" && got == key]
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	last := ""
	if len(req.Messages) > 0 {
		last = fmt.Sprint(req.Messages[len(req.Messages)-1].Content)
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Function.Name)
	}
	line, _ := json.Marshal(map[string]any{"n": n, "key": auth, "model": req.Model, "tools": strings.Join(tools, ","),
		"last": last})
	f, err := os.OpenFile(record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err == nil {
		f.Write(append(line, '\n'))
		f.Close()
	}
}

// streamChatTurn streams t as the Chat Completions API does: text, tool calls, the
// finish reason, the usage, [DONE].
func streamChatTurn(w http.ResponseWriter, n int, t apiTurn) {
	w.Header().Set("content-type", "text/event-stream")
	bw := bufio.NewWriter(w)
	event := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(bw, "data: %s\n\n", b)
	}
	type obj = map[string]any
	chunk := func(delta obj, finish any) {
		event(obj{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock",
			"choices": []any{obj{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(obj{"role": "assistant", "content": ""}, nil)
	if t.Text != "" {
		chunk(obj{"content": t.Text}, nil)
	}
	finish := "stop"
	for j, raw := range t.Calls {
		var c struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		}
		json.Unmarshal(raw, &c)
		chunk(obj{"tool_calls": []any{obj{"index": j, "id": fmt.Sprintf("call_%d_%d", n, j), "type": "function",
			"function": obj{"name": c.Name, "arguments": string(c.Args)}}}}, nil)
		finish = "tool_calls"
	}
	chunk(obj{}, finish)
	event(obj{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "choices": []any{},
		"usage": obj{"prompt_tokens": t.In, "completion_tokens": t.Out, "total_tokens": t.In + t.Out}})
	fmt.Fprint(bw, "data: [DONE]\n\n")
	bw.Flush()
}

// streamMessagesTurn streams t as the Anthropic Messages API does: message_start, a text
// block, a tool_use block per call, message_delta with the stop reason, message_stop.
func streamMessagesTurn(w http.ResponseWriter, n int, t apiTurn) {
	w.Header().Set("content-type", "text/event-stream")
	bw := bufio.NewWriter(w)
	type obj = map[string]any
	event := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(bw, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", obj{"type": "message_start", "message": obj{"id": fmt.Sprint("msg_", n), "type": "message",
		"role": "assistant", "content": []any{}, "model": "mock", "stop_reason": nil,
		"usage": obj{"input_tokens": t.In, "output_tokens": 1}}})
	i := 0
	block := func(start, delta obj) {
		event("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": start})
		event("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": delta})
		event("content_block_stop", obj{"type": "content_block_stop", "index": i})
		i++
	}
	if t.Text != "" {
		block(obj{"type": "text", "text": ""}, obj{"type": "text_delta", "text": t.Text})
	}
	stop := "end_turn"
	for j, raw := range t.Calls {
		var c struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		}
		json.Unmarshal(raw, &c)
		block(obj{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", n, j), "name": c.Name, "input": obj{}},
			obj{"type": "input_json_delta", "partial_json": string(c.Args)})
		stop = "tool_use"
	}
	event("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil},
		"usage": obj{"output_tokens": t.Out}})
	event("message_stop", obj{"type": "message_stop"})
	bw.Flush()
}

// streamResponsesTurn streams t as the OpenAI Responses API does: the response created,
// an output item per message and call (added, its delta, done), the response completed
// with its usage.
func streamResponsesTurn(w http.ResponseWriter, n int, t apiTurn) {
	w.Header().Set("content-type", "text/event-stream")
	bw := bufio.NewWriter(w)
	type obj = map[string]any
	send := func(name string, data obj) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(bw, "event: %s\ndata: %s\n\n", name, b)
	}
	resp := func(status string) obj {
		return obj{"id": fmt.Sprint("resp_", n), "object": "response", "status": status, "model": "mock", "output": []any{}}
	}
	send("response.created", obj{"response": resp("in_progress")})
	out := 0
	item := func(added, done, delta obj) {
		send("response.output_item.added", obj{"output_index": out, "item": added})
		name := delta["type"].(string)
		delta["output_index"] = out
		send(name, delta)
		send("response.output_item.done", obj{"output_index": out, "item": done})
		out++
	}
	if t.Text != "" {
		id := fmt.Sprint("msg_", n)
		item(obj{"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}},
			obj{"type": "message", "id": id, "role": "assistant", "status": "completed",
				"content": []any{obj{"type": "output_text", "text": t.Text, "annotations": []any{}}}},
			obj{"type": "response.output_text.delta", "item_id": id, "content_index": 0, "delta": t.Text})
	}
	for j, raw := range t.Calls {
		var c struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		}
		json.Unmarshal(raw, &c)
		id, callID := fmt.Sprintf("fc_%d_%d", n, j), fmt.Sprintf("call_%d_%d", n, j)
		item(obj{"type": "function_call", "id": id, "call_id": callID, "name": c.Name, "arguments": "", "status": "in_progress"},
			obj{"type": "function_call", "id": id, "call_id": callID, "name": c.Name, "arguments": string(c.Args), "status": "completed"},
			obj{"type": "response.function_call_arguments.delta", "item_id": id, "delta": string(c.Args)})
	}
	done := resp("completed")
	done["usage"] = obj{"input_tokens": t.In, "input_tokens_details": obj{"cached_tokens": 0},
		"output_tokens": t.Out, "output_tokens_details": obj{"reasoning_tokens": 0}, "total_tokens": t.In + t.Out}
	send("response.completed", obj{"response": done})
	bw.Flush()
}
