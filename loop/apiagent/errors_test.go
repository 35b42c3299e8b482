package apiagent

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gittest"
)

// The vendors' error answers, as their APIs send them.
const (
	anthropicRateLimit = `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your organization's rate limit of 50,000 input tokens per minute."},"request_id":"req_1"}`
	anthropicCredit    = `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}`
	anthropicAuth      = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`
	anthropicOverload  = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	anthropicTooLong   = `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 201234 tokens > 200000 maximum"}}`
	openAIRateLimit    = `{"error":{"message":"Rate limit reached for gpt-test in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	openAIQuota        = `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	openAIServer       = `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`
	openAIContext      = `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`
	llamaContext       = `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`
	ollamaNoModel      = `{"error":"model \"qwen9\" not found, try pulling it first"}`
)

func TestClassify(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		status    int
		headers   map[string]string
		body      string
		kind      Kind
		reset     time.Duration // from now; 0: none
		permanent bool
	}{
		{"anthropic 429 with retry-after", 429, map[string]string{"retry-after": "30",
			"anthropic-ratelimit-input-tokens-remaining": "0", "anthropic-ratelimit-input-tokens-reset": now.Add(time.Hour).Format(time.RFC3339)},
			anthropicRateLimit, Limit, 30 * time.Second, false},
		{"anthropic 429, the spent limit's reset", 429, map[string]string{
			"anthropic-ratelimit-requests-remaining": "40", "anthropic-ratelimit-requests-reset": now.Add(2 * time.Hour).Format(time.RFC3339),
			"anthropic-ratelimit-input-tokens-remaining": "0", "anthropic-ratelimit-input-tokens-reset": now.Add(20 * time.Second).Format(time.RFC3339)},
			anthropicRateLimit, Limit, 20 * time.Second, false},
		{"anthropic subscriber's unified window", 429, map[string]string{
			"anthropic-ratelimit-unified-5h-status": "rejected", "anthropic-ratelimit-unified-5h-reset": "1764342000",
			"anthropic-ratelimit-unified-7d-status": "allowed", "anthropic-ratelimit-unified-7d-reset": "1764900000"},
			anthropicRateLimit, Limit, time.Unix(1764342000, 0).Sub(now), false},
		{"anthropic no credits", 400, nil, anthropicCredit, Limit, 0, true},
		{"anthropic bad key", 401, nil, anthropicAuth, Fatal, 0, false},
		{"anthropic overloaded", 529, nil, anthropicOverload, Transient, 0, false},
		{"anthropic prompt too long", 400, nil, anthropicTooLong, ContextFull, 0, false},
		{"anthropic input and max_tokens over the window", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"input length and ` + "`max_tokens`" + ` exceed context limit: 188240 + 21333 > 200000, decrease input length or ` + "`max_tokens`" + ` and try again"}}`, ContextFull, 0, false},
		{"openai 429 x-ratelimit-reset", 429, map[string]string{
			"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s",
			"x-ratelimit-remaining-tokens": "1000", "x-ratelimit-reset-tokens": "20ms"},
			openAIRateLimit, Limit, 6 * time.Minute, false},
		{"openai retry-after-ms", 429, map[string]string{"retry-after-ms": "1500"}, openAIRateLimit, Limit, 1500 * time.Millisecond, false},
		{"openai quota", 429, nil, openAIQuota, Limit, 0, true},
		{"openai request over the key's per-minute budget", 429, nil,
			`{"error":{"message":"Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 45000.","type":"tokens","code":"rate_limit_exceeded"}}`, Limit, 0, true},
		{"openai server error", 500, nil, openAIServer, Transient, 0, false},
		{"openai 503", 503, nil, `upstream connect error`, Transient, 0, false},
		{"openai context", 400, nil, openAIContext, ContextFull, 0, false},
		{"llama.cpp context", 400, nil, llamaContext, ContextFull, 0, false},
		{"ollama unknown model", 404, nil, ollamaNoModel, Fatal, 0, false},
		{"forbidden", 403, nil, `{"error":{"message":"Project does not have access to model","type":"invalid_request_error","code":"model_not_found"}}`, Fatal, 0, false},
		{"payment required", 402, nil, `{"error":{"message":"Insufficient credits","code":402}}`, Limit, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			e := classify(tc.status, h, parseAPIError([]byte(tc.body)), now)
			if e.Kind != tc.kind || e.Permanent != tc.permanent || e.Status != tc.status {
				t.Errorf("kind %v permanent %v status %d, want %v %v %d", e.Kind, e.Permanent, e.Status, tc.kind, tc.permanent, tc.status)
			}
			var want time.Time
			if tc.reset != 0 {
				want = now.Add(tc.reset)
			}
			if !e.ResetAt.Equal(want) {
				t.Errorf("resets at %v, want %v", e.ResetAt, want)
			}
			if e.Message == "" || strings.HasPrefix(e.Message, "{") && tc.body[0] == '{' {
				t.Errorf("the message %q is not the vendor's words", e.Message)
			}
		})
	}
}

// Every protocol's failures end the iteration in the class the loop acts on; transient
// ones are tried again first.
func TestRunClassifiesFailures(t *testing.T) {
	ok := step{text: "done", in: 10, out: 5}
	for _, tc := range []struct {
		name     string
		proto    string
		steps    []step
		kind     Kind // 0: the iteration succeeds
		requests int
	}{
		{"anthropic limit", Anthropic, []step{{status: 429, headers: map[string]string{"retry-after": "120"}, body: anthropicRateLimit}}, Limit, 1},
		{"a limit that resets within LimitWait, then through", Chat, []step{{status: 429, headers: map[string]string{"retry-after-ms": "50"}, body: openAIRateLimit}, ok}, 0, 2},
		{"a permanent limit is not waited", Responses, []step{{status: 429, headers: map[string]string{"retry-after-ms": "50"}, body: openAIQuota}}, Limit, 1},
		{"openai limit", Responses, []step{{status: 429, headers: map[string]string{"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "2m0s"}, body: openAIRateLimit}}, Limit, 1},
		{"bad key is not retried", Chat, []step{{status: 401, body: `{"error":{"message":"Incorrect API key provided: ` + testKey + `","code":"invalid_api_key"}}`}}, Fatal, 1},
		{"overloaded, then through", Anthropic, []step{{status: 529, body: anthropicOverload}, ok}, 0, 2},
		{"server errors until the retries are spent", Responses, []step{{status: 500, body: openAIServer}, {status: 502, body: "bad gateway"}, {status: 503, body: "unavailable"}}, Transient, 3},
		{"context length", Chat, []step{{status: 400, body: llamaContext}}, ContextFull, 1},
		{"context length", Anthropic, []step{{status: 400, body: anthropicTooLong}}, ContextFull, 1},
		{"a stream cut mid-event, then through", Chat, []step{{cut: true}, ok}, 0, 2},
		{"a stream cut mid-event every time", Anthropic, []step{{cut: true}, {cut: true}, {cut: true}}, Transient, 3},
		{"overloaded mid-stream, then through", Anthropic, []step{{text: "Hal", errorEv: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, ok}, 0, 2},
		{"failed mid-stream", Responses, []step{{errorEv: `{"type":"error","code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}`}}, ContextFull, 1},
		{"an error event without a code", Responses, []step{{errorEv: `{"type":"error","message":"The connection to the model broke","param":null,"sequence_number":4}`}, ok}, 0, 2},
		{"an error event's code", Responses, []step{{errorEv: `{"type":"error","code":"server_is_overloaded","message":"overloaded","sequence_number":4}`}, ok}, 0, 2},
		{"a model that refuses encrypted reasoning, asked again without", Responses, []step{{status: 400, body: `{"error":{"message":"Encrypted content is not supported with this model.","type":"invalid_request_error","param":"include","code":null}}`}, ok}, 0, 2},
		{"a server's error chunk", Chat, []step{{text: "x", errorEv: `{"error":{"message":"rate limit exceeded","type":"rate_limit_error"}}`}}, Limit, 1},
		{"a stream that never ends", Responses, []step{{hang: true}}, Timeout, 1},
		{"a stream that never ends", Anthropic, []step{{hang: true}}, Timeout, 1},
		{"a stream that never ends", Chat, []step{{hang: true}}, Timeout, 1},
		{"a stream cut mid-event, then through", Responses, []step{{cut: true}, ok}, 0, 2},
		{"a stream closed before its end, then through", Anthropic, []step{{text: "Hal", noEnd: true}, ok}, 0, 2},
		{"a stream closed before its end every time", Responses, []step{{text: "Hal", noEnd: true}, {noEnd: true}, {noEnd: true}}, Transient, 3},
		{"a stream closed before its finish reason", Chat, []step{{text: "Hal", noEnd: true}, ok}, 0, 2},
		{"response.failed", Responses, []step{{errorEv: `{"type":"response.failed","response":{"status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached for requests"}}}`}}, Limit, 1},
	} {
		t.Run(tc.proto+" "+tc.name, func(t *testing.T) {
			m := newMock(t, tc.proto, tc.steps...)
			res, err, recs, _ := runMock(t, m, gittest.NewRepo(t), func(r *Request) {
				r.Retries, r.IdleTimeout, r.LimitWait = 2, 300*time.Millisecond, time.Second
			})
			if m.requests() != tc.requests {
				t.Errorf("%d requests, want %d", m.requests(), tc.requests)
			}
			if tc.kind == 0 {
				if err != nil || res.Said != "done" {
					t.Fatalf("Run: %v, said %q", err, res.Said)
				}
				if len(ofType(recs, RecRetry)) != tc.requests-1 {
					t.Errorf("the exchange records %d retries, want %d", len(ofType(recs, RecRetry)), tc.requests-1)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != tc.kind || res.Err != e {
				t.Fatalf("Run: %v, want a %v error in the result", err, tc.kind)
			}
			if got := ofType(recs, RecError); len(got) != 1 || got[0].Kind != tc.kind.String() {
				t.Errorf("the exchange's error records: %+v", got)
			}
			if tc.kind == Limit && e.ResetAt.IsZero() && tc.steps[0].headers != nil {
				t.Errorf("the limit has no reset time")
			}
		})
	}
}

// A failure reads as loop/agentcli reports a CLI agent's: the loop treats both alike.
func TestReportHasTheCLIsKinds(t *testing.T) {
	reset := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		err   *Error
		check func(r Result) bool
	}{
		{&Error{Kind: Limit, Message: "rate", ResetAt: reset, Permanent: true}, func(r Result) bool {
			l := r.Report().Limit
			return l != nil && l.ResetAt.Equal(reset) && l.Permanent && r.Report().Fatal == ""
		}},
		{&Error{Kind: Transient, Message: "overloaded"}, func(r Result) bool { return r.Report().Transient == "overloaded" }},
		{&Error{Kind: Fatal, Message: "bad key"}, func(r Result) bool { return r.Report().Fatal == "bad key" }},
		{&Error{Kind: ContextFull, Message: "full"}, func(r Result) bool {
			rep := r.Report()
			return rep.IsError && strings.Contains(rep.Error, "full") && rep.Limit == nil && rep.Transient == "" && rep.Fatal == ""
		}},
	} {
		res := Result{Said: "x", Usage: Usage{Input: 3, Output: 2, CacheRead: 7, CacheWrite: 1}, Err: tc.err}
		if !tc.check(res) {
			t.Errorf("%v: report %+v", tc.err, res.Report())
		}
		if u := res.Report().Usage; u.InputTokens != 3 || u.CacheReadTokens != 7 || u.CacheWriteTokens != 1 || u.CachedInInput {
			t.Errorf("usage %+v", u)
		}
	}
}

// A model that does not reason refuses the encrypted reasoning: the turn is asked again
// without it, and so are the turns after.
func TestResponsesWithoutEncryptedReasoning(t *testing.T) {
	m := newMock(t, Responses,
		step{status: 400, body: `{"error":{"message":"Encrypted content is not supported with this model.","type":"invalid_request_error","param":"include","code":null}}`},
		step{in: 10, out: 5, calls: []call{{toolList, obj{}}}},
		step{text: "done", in: 10, out: 5})
	res, err, _, _ := runMock(t, m, gittest.NewRepo(t), nil)
	if err != nil || res.Said != "done" {
		t.Fatalf("Run: %v, said %q", err, res.Said)
	}
	for i, want := range []bool{true, false, false} {
		if got := strings.Contains(m.body(i), `"include"`); got != want {
			t.Errorf("request %d asks for the encrypted reasoning: %v, want %v", i+1, got, want)
		}
	}
}

// A request refused for its output cap is sent again with the cap the model takes.
func TestOutputCapRefusedThenAdapted(t *testing.T) {
	for _, tc := range []struct {
		proto, refusal, first, again string
	}{
		{Anthropic, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 16384 > 8192, which is the maximum allowed number of output tokens for claude-3-5-haiku-20241022"}}`,
			`"max_tokens":16384`, `"max_tokens":8192`},
		{Chat, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`,
			`"max_tokens":16384`, `"max_completion_tokens":16384`},
	} {
		m := newMock(t, tc.proto, step{status: 400, body: tc.refusal}, step{text: "done", in: 1, out: 1})
		res, err, _, _ := runMock(t, m, gittest.NewRepo(t), func(r *Request) { r.MaxOutput = 16384 })
		if err != nil || res.Said != "done" {
			t.Fatalf("%s: Run: %v", tc.proto, err)
		}
		if !strings.Contains(m.body(0), tc.first) || !strings.Contains(m.body(1), tc.again) {
			t.Errorf("%s: the requests' caps: %.200s … then %.200s", tc.proto, m.body(0), m.body(1))
		}
	}
}
