package realagents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Codex (`@openai/codex`) against a mock of the OpenAI Responses API: `POST
// /v1/responses` answered with server-sent events, through a model provider of its own in
// ~/.codex/config.toml. Codex sends nothing else to a custom provider in `codex exec`
// (no models list, no titles, no websocket: supports_websockets is off); anything else
// it asks is answered 404 without taking a turn.
func init() {
	register(agentCLI{
		preset:    "codex",
		api:       codexAPI,
		configure: configureCodex,
		totals:    codexTotals,
		// the read-only sandbox (--sandbox read-only) runs the command, which cannot write
		judgeRefuses: "until.txt: Read-only file system",
		judgeCmd:     "codex exec --dangerously-bypass-approvals-and-sandbox -",
		says: map[errorKind]string{
			// codex's own words for these HTTP answers (codex-rs: QuotaExceeded, and the
			// status line it prints for any other unexpected status)
			quotaError: "Quota exceeded. Check your plan and billing details.",
			authError:  "unexpected status 401 Unauthorized: Incorrect API key provided",
		},
		more: []scenario{hungAfterChild},
	})
}

// configureCodex points codex at the mock with a model provider of its own. Its own
// retries are kept to one so that git-ralph's handling of each failure is what the
// scenarios see; its stream idle timeout is long so a hung stream is ended by git-ralph's
// iteration timeout, not by codex.
func configureCodex(t *testing.T, home, baseURL string) []string {
	writeFile(t, filepath.Join(home, ".codex", "config.toml"), fmt.Sprintf(`model = "gpt-5.5"
model_provider = "mock"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.mock]
name = "OpenAI mock"
base_url = "%s/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
supports_websockets = false
request_max_retries = 1
stream_max_retries = 1
stream_idle_timeout_ms = 600000
`, baseURL))
	return []string{"OPENAI_API_KEY=sk-mock-0123456789abcdef"}
}

// codexAPI answers the Responses API as api.openai.com does.
func codexAPI(m *mock) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		tr, n := m.take(req.URL.Path, body)
		switch {
		case tr.Fail != nil:
			codexError(w, tr.Fail)
		case tr.Hang:
			w.Header().Set("Content-Type", "text/event-stream")
			codexSend(w, "response.created", map[string]any{"response": codexResponse(n, "in_progress", nil)})
			m.hang(req.Context())
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			for _, e := range codexEvents(tr, n) {
				codexSend(w, e.name, e.data)
			}
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":{"message":"Invalid URL (%s %s)","type":"invalid_request_error","param":null,"code":null}}`, req.Method, req.URL.Path)
	})
	return mux
}

type codexSSE struct {
	name string
	data map[string]any
}

// sse writes one server-sent event; data gets its "type" field, as OpenAI sends it.
func codexSend(w http.ResponseWriter, name string, data map[string]any) {
	data["type"] = name
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	flush(w)
}

// codexResponse is the `response` of response.created and response.completed.
func codexResponse(n int, status string, u map[string]any) map[string]any {
	r := map[string]any{"id": fmt.Sprintf("resp_%d", n), "object": "response", "status": status,
		"model": "gpt-5.5", "output": []any{}}
	if u != nil {
		r["usage"] = u
	}
	return r
}

// codexEvents renders a turn as the Responses API streams it: a reasoning item with
// its summary (codex shows it as a reasoning item, not as the agent's words), a message,
// a function call of codex's own exec_command tool, then response.completed with usage.
func codexEvents(tr turn, n int) []codexSSE {
	s := &codexStream{n: n}
	s.add("response.created", map[string]any{"response": codexResponse(n, "in_progress", nil)})
	if tr.Thinking != "" {
		s.reasoning(tr.Thinking)
	}
	if tr.Text != "" {
		s.message(tr.Text)
	}
	if tr.Shell != "" {
		s.shell(tr.Shell)
	}
	s.add("response.completed", map[string]any{"response": codexResponse(n, "completed", codexUsage(tr.Usage))})
	return s.events
}

// codexStream collects the events of one response; out is the index of its next output item.
type codexStream struct {
	n, out int
	events []codexSSE
}

func (s *codexStream) add(name string, data map[string]any) {
	s.events = append(s.events, codexSSE{name, data})
}

// item streams one output item: added, its deltas (each given the item's id and index),
// done.
func (s *codexStream) item(id string, added, done map[string]any, deltas ...codexSSE) {
	s.add("response.output_item.added", map[string]any{"output_index": s.out, "item": added})
	for _, d := range deltas {
		d.data["item_id"], d.data["output_index"] = id, s.out
		s.add(d.name, d.data)
	}
	s.add("response.output_item.done", map[string]any{"output_index": s.out, "item": done})
	s.out++
}

func (s *codexStream) reasoning(text string) {
	id := fmt.Sprintf("rs_%d", s.n)
	s.item(id, map[string]any{"type": "reasoning", "id": id, "summary": []any{}},
		map[string]any{"type": "reasoning", "id": id, "summary": []any{map[string]any{"type": "summary_text", "text": text}}},
		codexSSE{"response.reasoning_summary_part.added", map[string]any{"summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}}},
		codexSSE{"response.reasoning_summary_text.delta", map[string]any{"summary_index": 0, "delta": text}},
		codexSSE{"response.reasoning_summary_text.done", map[string]any{"summary_index": 0, "text": text}})
}

func (s *codexStream) message(text string) {
	id := fmt.Sprintf("msg_%d", s.n)
	s.item(id, map[string]any{"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}},
		map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}},
		codexSSE{"response.content_part.added", map[string]any{"content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}}},
		codexSSE{"response.output_text.delta", map[string]any{"content_index": 0, "delta": text}},
		codexSSE{"response.output_text.done", map[string]any{"content_index": 0, "text": text}})
}

// shell calls exec_command, codex 0.169.0's shell tool (a function taking "cmd").
func (s *codexStream) shell(command string) {
	id, call := fmt.Sprintf("fc_%d", s.n), fmt.Sprintf("call_%d", s.n)
	b, _ := json.Marshal(map[string]any{"cmd": command})
	args := string(b)
	s.item(id, map[string]any{"type": "function_call", "id": id, "call_id": call, "name": "exec_command", "arguments": "", "status": "in_progress"},
		map[string]any{"type": "function_call", "id": id, "call_id": call, "name": "exec_command", "arguments": args, "status": "completed"},
		codexSSE{"response.function_call_arguments.delta", map[string]any{"delta": args}},
		codexSSE{"response.function_call_arguments.done", map[string]any{"arguments": args}})
}

// codexUsage is a response's usage. A quarter of the input is reported as cached
// (input_tokens_details.cached_tokens, a part of input_tokens as OpenAI counts it) and a
// quarter of the output as reasoning (a part of output_tokens), so a reader that adds
// the parts to the totals, or drops them, is caught.
func codexUsage(u usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.Input,
		"input_tokens_details":  map[string]any{"cached_tokens": u.Input / 4},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Output / 4},
		"total_tokens":          u.Input + u.Output,
	}
}

// codexError answers with the status, headers and body api.openai.com (and, for the
// usage limit, the ChatGPT backend codex logs into) answer with.
func codexError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_mock")
	if e.Kind == limitError {
		body := codexUsageLimit(w.Header(), e.ResetIn)
		w.WriteHeader(http.StatusTooManyRequests)
		json.NewEncoder(w).Encode(map[string]any{"error": body})
		return
	}
	a, ok := codexErrors[e.Kind]
	if !ok {
		a = codexAnswer{http.StatusInternalServerError, "the mock has no answer for " + string(e.Kind), "mock_error", ""}
	}
	body := map[string]any{"message": a.message, "type": a.typ, "param": nil, "code": nil}
	if a.code != "" {
		body["code"] = a.code
	}
	w.WriteHeader(a.status)
	json.NewEncoder(w).Encode(map[string]any{"error": body})
}

// codexAnswer is one of OpenAI's error answers: its status and error object.
type codexAnswer struct {
	status             int
	message, typ, code string
}

var codexErrors = map[errorKind]codexAnswer{
	quotaError: {http.StatusTooManyRequests, "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
		"insufficient_quota", "insufficient_quota"},
	authError: {http.StatusUnauthorized, "Incorrect API key provided: sk-mock-*********cdef. You can find your API key at https://platform.openai.com/account/api-keys.",
		"invalid_request_error", "invalid_api_key"},
	serverError:   {http.StatusInternalServerError, "The server had an error while processing your request. Sorry about that!", "server_error", ""},
	overloadedErr: {http.StatusServiceUnavailable, "The engine is currently overloaded, please try again later.", "server_error", ""},
}

// codexUsageLimit sets the x-codex-* rate-limit headers of the ChatGPT plan's usage limit,
// resetting in resetIn, and returns its error object: codex reads the error's type, plan
// and resets_at.
func codexUsageLimit(h http.Header, resetIn time.Duration) map[string]any {
	secs := int64(resetIn.Round(time.Second) / time.Second)
	at := time.Now().Add(resetIn).Unix()
	for name, v := range map[string]int64{
		"x-codex-primary-used-percent": 100, "x-codex-primary-window-minutes": 300,
		"x-codex-primary-reset-after-seconds": secs, "x-codex-primary-reset-at": at,
		"x-codex-secondary-used-percent": 40, "x-codex-secondary-window-minutes": 10080,
		"x-codex-secondary-reset-after-seconds": 86400, "x-codex-secondary-reset-at": time.Now().Add(24 * time.Hour).Unix(),
		"retry-after": secs,
	} {
		h.Set(name, strconv.FormatInt(v, 10))
	}
	return map[string]any{"type": "usage_limit_reached", "message": "The usage limit has been reached",
		"plan_type": "plus", "resets_at": at, "resets_in_seconds": secs}
}

// codexTotals reads codex's own usage from its `turn.completed` events, as printed by
// `codex exec --json`. Tokens equal means: input is codex's input_tokens, which counts
// the cached part too (cached_input_tokens is a part of it, as in OpenAI's usage), and
// output is its output_tokens, reasoning included; git-ralph records them as they are,
// the cached part also in cache_read_tokens. Codex reports no cost: 0.
func codexTotals(output []byte) (usage, float64, bool) {
	var sum usage
	found := false
	sc := bufio.NewScanner(bytes.NewReader(output))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Type  string `json:"type"`
			Usage struct {
				Input  int64 `json:"input_tokens"`
				Output int64 `json:"output_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "turn.completed" {
			continue
		}
		found = true
		sum.Input += e.Usage.Input
		sum.Output += e.Usage.Output
	}
	return sum, 0, found
}
