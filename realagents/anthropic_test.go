package realagents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The Anthropic Messages API, mocked once for every CLI that speaks it: Claude Code (with
// an API key and as a subscriber) and copilot with COPILOT_PROVIDER_TYPE=anthropic.

// anthropicAccount is how the CLI authenticates, which decides the rate-limit headers
// the API sends and how it words a limit.
type anthropicAccount int

const (
	apiKeyAccount     anthropicAccount = iota // x-api-key: per-minute request and token limits
	subscriberAccount                         // a Claude Pro/Max OAuth token: the unified windows
)

// anthropic is the mock of the Messages API. Model requests (those that offer the agent
// its tools) take turns from the script; side requests are answered on their own. With
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, Claude Code 2.1.197 sends none: only a HEAD /
// first (a preconnect, answered 404) and its model requests. Without it, it also asks for
// a session title (no tools, claude-haiku-4-5 with an API key); count_tokens and any other
// path are answered too, and every request is in the test's log.
type anthropic struct {
	m       *mock
	account anthropicAccount
	// shellTool is the name of the CLI's own shell tool, which a turn's Shell calls with
	// {command, description}: Claude Code's "Bash", copilot's "bash".
	shellTool string
	// slowErrors is how long a 5xx answer takes (see fail): set for Claude Code, whose
	// start-up time the scenario's count of attempts depends on.
	slowErrors time.Duration

	mu      sync.Mutex
	limited *apiError // the limit the latest model request got, while it lasts
	until   time.Time
	ids     int

	spendCap bool // a subscriber's limit: the org's monthly spend cap rejects overage
	overage  bool // a subscriber's answers: past the five-hour window, served on overage
}

// messagesRequest is what the mock reads of a request's body.
type messagesRequest struct {
	Model     string            `json:"model"`
	Stream    bool              `json:"stream"`
	MaxTokens int               `json:"max_tokens"`
	Tools     []json.RawMessage `json:"tools"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (a *anthropic) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var mr messagesRequest
	_ = json.Unmarshal(body, &mr)
	path := req.URL.Path
	switch {
	case req.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		a.logf("count_tokens: answered")
		writeJSON(w, http.StatusOK, nil, map[string]any{"input_tokens": 1200})
	case req.Method == http.MethodPost && path == "/v1/messages" && len(mr.Tools) > 0:
		tr, i := a.m.take(path, body)
		a.logf("model request %d (%s, stream %v, %d messages): turn %d", len(a.m.requests()), mr.Model, mr.Stream, len(mr.Messages), i)
		a.answer(w, req, mr, tr, i)
	case req.Method == http.MethodPost && path == "/v1/messages":
		a.side(w, req, mr)
	default:
		a.logf("%s %s: 404", req.Method, req.URL)
		writeJSON(w, http.StatusNotFound, nil, anthropicError("not_found_error", "Not found"))
	}
}

func (a *anthropic) logf(format string, args ...any) {
	a.m.t.Logf("anthropic mock: "+format, args...)
}

// side answers a request that is not a model turn: a short answer, or the limit the
// account is under while it lasts (a limited account's every request is refused).
func (a *anthropic) side(w http.ResponseWriter, req *http.Request, mr messagesRequest) {
	a.mu.Lock()
	limited, until := a.limited, a.until
	a.mu.Unlock()
	a.logf("side request (%s, stream %v, max_tokens %d): %q", mr.Model, mr.Stream, mr.MaxTokens, firstText(mr))
	if limited != nil && time.Now().Before(until) {
		a.fail(w, *limited)
		return
	}
	a.stream(w, mr, turn{Text: "Add agent.txt", Usage: usage{Input: 10, Output: 3}})
}

// firstText is the start of the last message's text, for the log.
func firstText(mr messagesRequest) string {
	if len(mr.Messages) == 0 {
		return ""
	}
	s := string(mr.Messages[len(mr.Messages)-1].Content)
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

// answer renders a model turn: an error, a stream that hangs, or the answer.
func (a *anthropic) answer(w http.ResponseWriter, req *http.Request, mr messagesRequest, tr turn, i int) {
	a.mu.Lock()
	a.limited = nil
	if tr.Fail != nil && (tr.Fail.Kind == limitError || tr.Fail.Kind == quotaError) {
		a.limited, a.until = tr.Fail, time.Now().Add(max(tr.Lasts, time.Second))
	}
	a.mu.Unlock()
	switch {
	case tr.Fail != nil:
		a.fail(w, *tr.Fail)
	case tr.Hang:
		a.headers(w)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		sse(w, "message_start", map[string]any{"type": "message_start", "message": a.message(mr, tr.Usage)})
		flush(w)
		a.m.hang(req.Context())
	default:
		a.stream(w, mr, tr)
	}
}

// message is the message of a message_start event: its usage so far. The cache counts
// are made from the input, so that each answer's differ.
func (a *anthropic) message(mr messagesRequest, u usage) map[string]any {
	a.mu.Lock()
	a.ids++
	id := fmt.Sprintf("msg_realagents%04d", a.ids)
	a.mu.Unlock()
	model := mr.Model
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                u.Input,
			"cache_creation_input_tokens": cacheWrite(u),
			"cache_read_input_tokens":     cacheRead(u),
			"output_tokens":               1,
		},
	}
}

func cacheRead(u usage) int64  { return 3 * u.Input }
func cacheWrite(u usage) int64 { return u.Input / 4 }

// stream answers tr as Server-Sent Events (or one JSON message when the request did not
// ask for a stream): thinking, text, then a Bash tool call, each a content block.
func (a *anthropic) stream(w http.ResponseWriter, mr messagesRequest, tr turn) {
	msg := a.message(mr, tr.Usage)
	var blocks []map[string]any
	if tr.Thinking != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": tr.Thinking, "signature": "c2lnbmVkIGJ5IHRoZSBtb2Nr"})
	}
	if tr.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": tr.Text})
	}
	stop := "end_turn"
	if tr.Shell != "" {
		id := fmt.Sprintf("toolu_realagents%04d", len(a.m.requests()))
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": id, "name": a.shellTool,
			"input": map[string]any{"command": tr.Shell, "description": "Run the command"}})
		stop = "tool_use"
	}
	if !mr.Stream {
		msg["content"], msg["stop_reason"] = blocks, stop
		msg["usage"].(map[string]any)["output_tokens"] = tr.Usage.Output
		writeJSON(w, http.StatusOK, a.rateHeaders(nil), msg)
		return
	}
	a.headers(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": msg})
	sse(w, "ping", map[string]any{"type": "ping"})
	for i, b := range blocks {
		sseBlock(w, i, b)
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": tr.Usage.Output}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
	flush(w)
}

// sseBlock streams one content block: its start (empty), its deltas, its stop.
func sseBlock(w http.ResponseWriter, i int, b map[string]any) {
	var start map[string]any
	var deltas []map[string]any
	switch b["type"] {
	case "thinking":
		start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		deltas = []map[string]any{
			{"type": "thinking_delta", "thinking": b["thinking"]},
			{"type": "signature_delta", "signature": b["signature"]},
		}
	case "text":
		text := b["text"].(string)
		start = map[string]any{"type": "text", "text": ""}
		for _, part := range halves(text) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": part})
		}
	case "tool_use":
		start = map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}
		input, _ := json.Marshal(b["input"])
		for _, part := range halves(string(input)) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": part})
		}
	}
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start})
	for _, d := range deltas {
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}

func sse(w io.Writer, event string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
}

// fail answers an error as the API does: its status, its error body, its headers.
func (a *anthropic) fail(w http.ResponseWriter, e apiError) {
	if e.Kind == serverError || e.Kind == overloadedErr {
		// A server in trouble answers slowly. It also keeps the scenario's count of
		// attempts steady: Claude Code starts and fails in about 2 s, just under the
		// 2 s each error lasts, so on an idle machine a third attempt could still meet
		// the first error and use up git-ralph's three quick retries before the
		// server is back; one second more (slowErrors) makes each error meet one
		// attempt. Copilot retries 5xx itself within one attempt: it needs no delay.
		time.Sleep(a.slowErrors)
	}
	status, body := a.failure(e)
	writeJSON(w, status, a.rateHeaders(&e), body)
}

// failure is the status and body of an error of kind e.Kind, in the API's own words.
func (a *anthropic) failure(e apiError) (int, map[string]any) {
	if a.account == subscriberAccount && (e.Kind == limitError || e.Kind == quotaError) {
		// the headers say which window: Claude Code words the limit from them
		return http.StatusTooManyRequests, anthropicError("rate_limit_error", "This request would exceed your account's rate limit. Please try again later.")
	}
	switch e.Kind {
	case limitError:
		return http.StatusTooManyRequests, anthropicError("rate_limit_error",
			"This request would exceed your organization's rate limit of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.")
	case quotaError:
		return http.StatusBadRequest, anthropicError("invalid_request_error",
			"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")
	case authError:
		return http.StatusUnauthorized, anthropicError("authentication_error", "invalid x-api-key")
	case serverError:
		return http.StatusInternalServerError, anthropicError("api_error", "Internal server error")
	case overloadedErr:
		return 529, anthropicError("overloaded_error", "Overloaded")
	}
	panic("anthropic mock: no error of kind " + string(e.Kind))
}

func anthropicError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg},
		"request_id": "req_realagents"}
}

// rateHeaders are the rate-limit headers of an answer: for an API key the per-minute
// request and token limits; for a subscriber the unified ones Claude Code turns into
// rate_limit_event lines. fail is the error being answered, nil for a success.
func (a *anthropic) rateHeaders(fail *apiError) http.Header {
	h := http.Header{}
	now := time.Now()
	rfc := func(d time.Duration) string { return now.Add(d).UTC().Format(time.RFC3339) }
	h.Set("request-id", "req_realagents")
	if a.account == apiKeyAccount {
		h.Set("anthropic-ratelimit-requests-limit", "50")
		h.Set("anthropic-ratelimit-requests-remaining", "49")
		h.Set("anthropic-ratelimit-requests-reset", rfc(time.Second))
		h.Set("anthropic-ratelimit-input-tokens-limit", "50000")
		h.Set("anthropic-ratelimit-input-tokens-remaining", "48000")
		h.Set("anthropic-ratelimit-input-tokens-reset", rfc(time.Second))
		if fail != nil && fail.Kind == limitError {
			reset := max(fail.ResetIn, time.Second)
			h.Set("retry-after", strconv.Itoa(int((reset+time.Second-1)/time.Second)))
			h.Set("anthropic-ratelimit-input-tokens-remaining", "0")
			h.Set("anthropic-ratelimit-input-tokens-reset", rfc(reset))
		}
		return h
	}
	return a.unifiedHeaders(h, fail)
}

// window is one of a subscriber's usage windows as the unified headers state it.
type window struct {
	status      string // allowed, rejected
	utilization string
	resetIn     time.Duration
}

// unifiedHeaders adds a subscriber's headers to h. Extra usage (overage) is always
// rejected: past a window's end the subscriber is limited, not served on overage.
//   - a success: both windows allowed;
//   - a limit: the five-hour window spent until fail.ResetIn, no credits for overage
//     (Claude Code: "You've hit your session limit · resets 5am (UTC)"); with spendCap,
//     the organization's monthly spend cap is what rejects the overage (Claude Code:
//     "You've hit your org's monthly spend limit", without the window's reset);
//   - a success with overage: the five-hour window spent, extra usage allowed and in
//     use (Claude Code goes on, and prints the rejected window with isUsingOverage);
//   - a quota: the weekly window spent for four more days, no credits (Claude Code:
//     "You've hit your weekly limit · resets Nov 27, 5am (UTC)"), further away than
//     git-ralph's max_limit_wait: what stops a subscriber for good tonight. Claude Code
//     has no subscriber limit that never resets; its permanent ones depend on the seat
//     type its profile request would report ("Your org is out of usage · add funds").
func (a *anthropic) unifiedHeaders(h http.Header, fail *apiError) http.Header {
	now := time.Now()
	epoch := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	five := window{"allowed", "0.12", 3 * time.Hour}
	seven := window{"allowed", "0.41", 4 * 24 * time.Hour}
	claim, reason := "five_hour", "out_of_credits"
	rejected := &five
	switch {
	case fail != nil && fail.Kind == limitError:
		five = window{"rejected", "1.0", max(fail.ResetIn, time.Second)}
		if a.spendCap {
			reason = "org_spend_cap_reached"
		}
	case fail != nil && fail.Kind == quotaError:
		seven = window{"rejected", "1.0", 4*24*time.Hour + 7*time.Minute}
		claim, rejected = "seven_day", &seven
	}
	overage := "rejected"
	if fail == nil && a.overage {
		// past the window, served as paid extra usage
		five = window{"rejected", "1.0", 2 * time.Hour}
		overage = "allowed"
	}
	status := "allowed"
	if rejected.status == "rejected" {
		status = "rejected"
	}
	if fail != nil {
		h.Set("retry-after", strconv.FormatInt(int64(rejected.resetIn/time.Second), 10))
	}
	h.Set("anthropic-ratelimit-unified-status", status)
	h.Set("anthropic-ratelimit-unified-reset", epoch(rejected.resetIn))
	h.Set("anthropic-ratelimit-unified-representative-claim", claim)
	h.Set("anthropic-ratelimit-unified-overage-status", overage)
	if overage == "rejected" {
		h.Set("anthropic-ratelimit-unified-overage-disabled-reason", reason)
	}
	h.Set("anthropic-ratelimit-unified-overage-in-use", strconv.FormatBool(overage == "allowed"))
	h.Set("anthropic-ratelimit-unified-overage-reset", epoch(20*24*time.Hour))
	for name, w := range map[string]window{"5h": five, "7d": seven} {
		h.Set("anthropic-ratelimit-unified-"+name+"-status", w.status)
		h.Set("anthropic-ratelimit-unified-"+name+"-utilization", w.utilization)
		h.Set("anthropic-ratelimit-unified-"+name+"-reset", epoch(w.resetIn))
	}
	return h
}

// headers sets the rate-limit headers of a successful answer on w.
func (a *anthropic) headers(w http.ResponseWriter) {
	for k, v := range a.rateHeaders(nil) {
		w.Header()[k] = v
	}
}

func writeJSON(w http.ResponseWriter, status int, h http.Header, body any) {
	for k, v := range h {
		w.Header()[k] = v
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}
