package realagents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Claude Code against a mock of the Anthropic Messages API, twice: with an API key, and
// as a subscriber (a Claude Pro/Max OAuth token). Only a subscriber gets rate_limit_event
// lines: Claude Code makes them from the anthropic-ratelimit-unified-* response headers,
// which the API sends to subscription tokens only.
func init() {
	register(agentCLI{
		preset: "claude",
		api:    func(m *mock) http.Handler { return newAnthropic(m, apiKeyAccount) },
		configure: func(t *testing.T, home, baseURL string) []string {
			return configureClaude(t, home, baseURL, "ANTHROPIC_API_KEY=sk-ant-api03-realagents-fake-key")
		},
		totals: claudeTotals,
		says: map[errorKind]string{
			quotaError: "Credit balance is too low",
			authError:  "Invalid API key · Fix external API key",
		},
	})
	register(agentCLI{
		name: "claude-subscriber", preset: "claude", account: "subscriber",
		api: func(m *mock) http.Handler { return newAnthropic(m, subscriberAccount) },
		configure: func(t *testing.T, home, baseURL string) []string {
			return configureClaude(t, home, baseURL, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-realagents-fake-token")
		},
		totals: claudeTotals,
		says: map[errorKind]string{
			quotaError: "You've hit your weekly limit",
		},
		skip: map[string]string{
			"tags-not-in-words": "same as claude with an API key: the account changes only the rate-limit headers",
			"bad-credentials":   "same as claude with an API key: a 401 is read the same whatever the account",
			"server-errors":     "same as claude with an API key: 500 and 529 are read the same whatever the account",
			"hung-stream":       "same as claude with an API key: the account plays no part in a stream that never ends",
		},
	})
}

type claudeAccount int

const (
	apiKeyAccount claudeAccount = iota
	subscriberAccount
)

// configureClaude points Claude Code at the mock and turns off what it would otherwise
// do on its own: update itself, send telemetry and error reports, retry failed requests
// (git-ralph's retries and waits are what the scenarios test), ask the onboarding and
// bypass-permissions questions.
func configureClaude(t *testing.T, home, baseURL, credential string) []string {
	writeFile(t, filepath.Join(home, ".claude.json"), `{
  "hasCompletedOnboarding": true,
  "bypassPermissionsModeAccepted": true,
  "autoUpdates": false
}
`)
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{
  "autoUpdates": false,
  "includeCoAuthoredBy": false,
  "cleanupPeriodDays": 1
}
`)
	return []string{
		"ANTHROPIC_BASE_URL=" + baseURL,
		credential,
		"IS_SANDBOX=1", // the tests run as root, where bypass mode refuses to start without it
		"CLAUDE_CODE_MAX_RETRIES=0",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	}
}

// claudeTotals reads the usage and cost of Claude Code's own result events (one per
// attempt; summed). "Tokens equal" means: input_tokens and output_tokens as the result
// states them. Claude's input_tokens leave out the prompt cache, which it counts apart
// (cache_read_input_tokens, cache_creation_input_tokens) and git-ralph records apart
// (cache_read_tokens, cache_write_tokens); the mock reports cache tokens too, so a
// reader that folds them into the input is caught here, and the recorded fixtures
// (loop/agentcli/recorded_claude_test.go) check the cache counts themselves.
func claudeTotals(output []byte) (usage, float64, bool) {
	var tokens usage
	var cost float64
	found := false
	for line := range bytes.Lines(output) {
		var e struct {
			Type  string `json:"type"`
			Usage *struct {
				Input  int64 `json:"input_tokens"`
				Output int64 `json:"output_tokens"`
			} `json:"usage"`
			Cost *float64 `json:"total_cost_usd"`
		}
		if json.Unmarshal(bytes.TrimSpace(line), &e) != nil || e.Type != "result" {
			continue
		}
		found = true
		if e.Usage != nil {
			tokens.Input += e.Usage.Input
			tokens.Output += e.Usage.Output
		}
		if e.Cost != nil {
			cost += *e.Cost
		}
	}
	return tokens, cost, found
}

// anthropic is the mock of the Messages API. Model requests (those that offer the agent
// its tools) take turns from the script; side requests are answered on their own. With
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, 2.1.197 sends none: only a HEAD / first (a
// preconnect, answered 404) and its model requests. Without it, it also asks for a
// session title (no tools, claude-haiku-4-5 with an API key); count_tokens and any other
// path are answered too, and every request is in the test's log.
type anthropic struct {
	m       *mock
	account claudeAccount

	mu      sync.Mutex
	limited *apiError // the limit the latest model request got, while it lasts
	until   time.Time
	ids     int

	spendCap bool // a subscriber's limit: the org's monthly spend cap rejects overage
	overage  bool // a subscriber's answers: past the five-hour window, served on overage
}

func newAnthropic(m *mock, account claudeAccount) http.Handler {
	return &anthropic{m: m, account: account}
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
		tr, i := a.m.take(path)
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
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": id, "name": "Bash",
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
		// server is back; one second more makes each error meet one attempt.
		time.Sleep(time.Second)
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

// TestClaudeSubscriberSpendCap: a subscriber past the five-hour window whose extra usage
// is refused by the organization's monthly spend cap. Claude Code says only "You've hit
// your org's monthly spend limit", but its rate_limit_event says when the window resets,
// and then the plan serves again: the loop waits for it, as for any limit, rather than
// stop as if the cap were the limit.
func TestClaudeSubscriberSpendCap(t *testing.T) {
	if why := skipReason(); why != "" {
		t.Skip("the real agent CLIs are not run:", why)
	}
	t.Parallel()
	c := clis["claude-subscriber"]
	c.api = func(m *mock) http.Handler {
		return &anthropic{m: m, account: subscriberAccount, spendCap: true}
	}
	concurrent <- struct{}{}
	defer func() { <-concurrent }()
	r := newRun(t, c, append([]turn{
		{Fail: &apiError{Kind: limitError, ResetIn: 4 * time.Second}, Lasts: 4 * time.Second},
	}, successScript()...))
	checkLimitReset(r)
	// the iteration's tokens and cost are those of its attempts together
	checkUsage(r, r.history()[0])
	r.record("spend-cap")
}

// TestClaudeSubscriberOverage: a subscriber past the five-hour window with extra usage
// turned on is served, paid as overage: claude prints the window "rejected" with
// isUsingOverage and goes on. That is no limit: the loop neither waits nor stops, and the
// record says overage. With stop_on_overage the loop stops after that iteration.
func TestClaudeSubscriberOverage(t *testing.T) {
	if why := skipReason(); why != "" {
		t.Skip("the real agent CLIs are not run:", why)
	}
	t.Parallel()
	c := clis["claude-subscriber"]
	c.api = func(m *mock) http.Handler {
		return &anthropic{m: m, account: subscriberAccount, overage: true}
	}
	unfinished := []turn{
		{Text: "Adding agent.txt.", Shell: commitCommand},
		{Text: "I added agent.txt. One more item is left."},
	}
	concurrent <- struct{}{}
	defer func() { <-concurrent }()

	r := newRun(t, c, successScript())
	res := r.loop("--max", "2")
	if res.code != 0 || strings.Contains(res.stderr, "usage limit") {
		t.Fatalf("want exit 0 without a limit: overage is served\n%s", res)
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Outcome != "done" || recs[0].RateLimitWaits != 0 || !onOverage(r)[0] {
		t.Errorf("want one iteration done, on overage, without a wait; got %+v", recs)
	}
	checkUsage(r, recs[0])
	r.record("overage")

	r = newRun(t, c, unfinished)
	r.env = append(r.env, "RALPH_STOP_ON_OVERAGE=true")
	res = r.loop("--max", "3")
	if res.code != 1 || !strings.Contains(res.stderr, "overage") {
		t.Fatalf("want exit 1 with stop_on_overage, saying why\n%s", res)
	}
	if over := onOverage(r); len(over) != 1 || !over[0] {
		t.Errorf("want one iteration on overage, then the stop; got %v", over)
	}
}

// onOverage says of each iteration in the history whether it was served on overage
// (the field is claude's alone, so it is read here rather than in the harness's record).
func onOverage(r *run) []bool {
	r.t.Helper()
	res := r.ralph("history", "--json")
	var recs []struct {
		Overage bool `json:"overage"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &recs); err != nil {
		r.t.Fatalf("git ralph history --json: %v\n%s", err, res)
	}
	out := make([]bool, len(recs))
	for i, rec := range recs {
		out[i] = rec.Overage
	}
	return out
}
