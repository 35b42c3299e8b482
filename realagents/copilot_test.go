package realagents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// GitHub Copilot CLI (@github/copilot) in its BYOK mode: COPILOT_PROVIDER_BASE_URL
// points it at an OpenAI-compatible provider, which it talks to with the Chat
// Completions API (`copilot help providers`: wire API "completions" is the default).
// With COPILOT_OFFLINE=true it needs no GitHub login and touches no other network
// (`copilot help environment`). The mock below speaks Chat Completions with server-sent
// events, as the OpenAI JS SDK the CLI uses (5.20.1, its x-stainless headers) reads them.
func init() {
	register(agentCLI{
		preset:    "copilot",
		api:       copilotAPI,
		configure: configureCopilot,
		// totals: none. Its JSON output carries no token counts: the result's usage has
		// premiumRequests and durations only, and assistant.usage is not printed
		// (github/copilot-cli#4107), so the tests check that git-ralph records none.
		says: map[errorKind]string{
			// its session.error quotes the provider's message after its own retries
			quotaError: "You exceeded your current quota",
			// for a 401 it says its own words, not the provider's
			authError: "Authentication failed with provider",
		},
		skip: map[string]string{
			"limit-reset": "copilot waits out a 429 whose Retry-After is short itself (seen: 4, 20 and 60 s; " +
				"5 retries): the 4 s limit never reaches git-ralph, the same run succeeds. With Retry-After: 300 " +
				"it stops at once (session.error rate_limit, 'Please try again in 300s.'), too long a wait for a " +
				"test: loop/agentcli's TestReadCopilotLongRateLimit reads that recording",
		},
	})
}

// copilotModel is a model of the CLI's built-in catalog, so that it knows its token
// limits and prints no warning about an unknown model.
const copilotModel = "gpt-4.1"

// configureCopilot points the CLI at the mock. The CLI unpacks itself (235 MB) into
// its package cache on first run; COPILOT_PKG_CACHE_HOME shares one unpacked copy per
// installed version between the tests instead of one per temporary HOME.
func configureCopilot(t *testing.T, home, baseURL string) []string {
	bin, p := installed(t, "copilot")
	pkgCache := filepath.Join(filepath.Dir(filepath.Dir(bin)), "copilot-pkg-cache")
	copilotUnpack(t, bin, pkgCache, p.version)
	return []string{
		"COPILOT_PROVIDER_BASE_URL=" + baseURL + "/v1",
		"COPILOT_PROVIDER_API_KEY=sk-realagents-not-a-key",
		"COPILOT_MODEL=" + copilotModel,
		"COPILOT_OFFLINE=true",      // no GitHub login, telemetry, update checks
		"COPILOT_AUTO_UPDATE=false", // never download another version
		"COPILOT_PKG_CACHE_HOME=" + pkgCache,
	}
}

var copilotUnpacked sync.Map // package cache → *sync.Once

// copilotUnpack lets the CLI unpack itself into pkgCache once, before the scenarios
// run it in parallel, so that no two processes unpack into the same directory at once.
func copilotUnpack(t *testing.T, bin, pkgCache, version string) {
	once, _ := copilotUnpacked.LoadOrStore(pkgCache, &sync.Once{})
	once.(*sync.Once).Do(func() {
		cmd := exec.Command(filepath.Join(bin, "copilot"), "--version")
		cmd.Env = append(os.Environ(), "COPILOT_PKG_CACHE_HOME="+pkgCache, "COPILOT_AUTO_UPDATE=false",
			"COPILOT_OFFLINE=true", "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), version) {
			t.Logf("copilot --version (unpacking into %s): %v\n%s", pkgCache, err, out)
		}
	})
}

// copilotAPI is the mock of an OpenAI-compatible provider: POST /v1/chat/completions
// takes a turn and streams it as chat.completion.chunk events; GET /v1/models lists the
// one model.
func copilotAPI(m *mock) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","created":1700000000,"owned_by":"mock"}]}`, copilotModel)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model  string            `json:"model"`
			Stream bool              `json:"stream"`
			Tools  []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, `{"error":{"message":"bad JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		tr, i := m.take(r.URL.Path)
		switch {
		case tr.Fail != nil:
			copilotFail(w, tr.Fail)
		case !req.Stream:
			m.t.Errorf("copilot asked for a completion without streaming; the mock streams only")
			http.Error(w, `{"error":{"message":"the mock streams only","type":"invalid_request_error"}}`, http.StatusBadRequest)
		default:
			copilotStream(m, w, r, tr, i, req.Model)
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		m.t.Logf("copilot mock: unexpected %s %s", r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`)
	})
	return mux
}

// copilotStream renders tr as the chunks of a streamed chat completion: reasoning, then
// the text, then one tool call of the CLI's bash tool, then the usage, then [DONE].
func copilotStream(m *mock, w http.ResponseWriter, r *http.Request, tr turn, i int, model string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	id := "chatcmpl-mock-" + strconv.Itoa(i)
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any, extra map[string]any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
		for k, v := range extra {
			c[k] = v
		}
		data, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", data)
		flush(w)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	if tr.Hang {
		m.hang(r.Context())
		return
	}
	if tr.Thinking != "" {
		chunk(map[string]any{"reasoning_text": tr.Thinking}, nil, nil)
	}
	if tr.Text != "" {
		chunk(map[string]any{"content": tr.Text}, nil, nil)
	}
	finish := "stop"
	if tr.Shell != "" {
		args, _ := json.Marshal(map[string]any{"command": tr.Shell, "description": "Run the command"})
		chunk(map[string]any{"tool_calls": []map[string]any{{"index": 0, "id": "call_mock_" + strconv.Itoa(i),
			"type": "function", "function": map[string]any{"name": "bash", "arguments": string(args)}}}}, nil, nil)
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish, nil)
	data, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
		"choices": []any{}, "usage": map[string]any{"prompt_tokens": tr.Usage.Input, "completion_tokens": tr.Usage.Output,
			"total_tokens": tr.Usage.Input + tr.Usage.Output}})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", data)
	flush(w)
}

// copilotFail answers with the OpenAI API's own error bodies and rate-limit headers.
func copilotFail(w http.ResponseWriter, e *apiError) {
	status, typ, code, msg := http.StatusInternalServerError, "server_error", "", "The server had an error while processing your request. Sorry about that!"
	switch e.Kind {
	case limitError:
		secs := int(e.ResetIn.Round(time.Second) / time.Second)
		status, typ, code = http.StatusTooManyRequests, "requests", "rate_limit_exceeded"
		msg = fmt.Sprintf("Rate limit reached for %s in organization org-mock on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in %ds.", copilotModel, secs)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		w.Header().Set("x-ratelimit-limit-requests", "3")
		w.Header().Set("x-ratelimit-remaining-requests", "0")
		w.Header().Set("x-ratelimit-reset-requests", strconv.Itoa(secs)+"s")
	case quotaError:
		status, typ, code = http.StatusTooManyRequests, "insufficient_quota", "insufficient_quota"
		msg = "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."
	case authError:
		status, typ, code = http.StatusUnauthorized, "invalid_request_error", "invalid_api_key"
		msg = "Incorrect API key provided: sk-realag*********-key. You can find your API key at https://platform.openai.com/account/api-keys."
	case overloadedErr:
		status, msg = http.StatusServiceUnavailable, "The engine is currently overloaded, please try again later"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": copilotNilIfEmpty(code)}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

func copilotNilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// copilot-anthropic: the same CLI with COPILOT_PROVIDER_TYPE=anthropic, which talks to
// the provider with the Anthropic Messages API (its Anthropic JS SDK 0.94.0), answered
// here by a mock of that API with server-sent events and Anthropic's error bodies.
func init() {
	register(agentCLI{
		name:    "copilot-anthropic",
		preset:  "copilot",
		account: "anthropic",
		api:     copilotAnthropicAPI,
		configure: func(t *testing.T, home, baseURL string) []string {
			env := configureCopilot(t, home, baseURL)
			for i, kv := range env {
				switch {
				case strings.HasPrefix(kv, "COPILOT_PROVIDER_BASE_URL="):
					env[i] = "COPILOT_PROVIDER_BASE_URL=" + baseURL // the SDK adds /v1/messages
				case strings.HasPrefix(kv, "COPILOT_MODEL="):
					env[i] = "COPILOT_MODEL=" + copilotAnthropicModel
				}
			}
			return append(env, "COPILOT_PROVIDER_TYPE=anthropic")
		},
		says: map[errorKind]string{
			quotaError: "Your credit balance is too low to access the Anthropic API",
			authError:  "Authentication failed with provider",
		},
		skip: map[string]string{
			"limit-reset": "copilot waits out a 429 with a Retry-After itself (as with an OpenAI-compatible provider)",
		},
	})
}

// copilotAnthropicModel is a Claude model of the CLI's built-in catalog.
const copilotAnthropicModel = "claude-sonnet-4.5"

// copilotAnthropicAPI is the mock of the Anthropic Messages API: POST /v1/messages
// takes a turn and streams it; POST /v1/messages/count_tokens is answered on its own.
func copilotAnthropicAPI(m *mock) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":1000}`)
	})
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			copilotAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "bad JSON")
			return
		}
		tr, i := m.take(r.URL.Path)
		switch {
		case tr.Fail != nil:
			copilotAnthropicFail(w, tr.Fail)
		case !req.Stream:
			m.t.Errorf("copilot asked for a message without streaming; the mock streams only")
			copilotAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "the mock streams only")
		default:
			copilotAnthropicStream(m, w, r, tr, i, req.Model)
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		m.t.Logf("copilot-anthropic mock: unexpected %s %s", r.Method, r.URL.Path)
		copilotAnthropicError(w, http.StatusNotFound, "not_found_error", "Not found")
	})
	return mux
}

// copilotAnthropicStream renders tr as a streamed message: a thinking block, a text
// block, a tool_use block of the CLI's bash tool, then the stop reason and usage.
func copilotAnthropicStream(m *mock, w http.ResponseWriter, r *http.Request, tr turn, i int, model string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		flush(w)
	}
	event("message_start", map[string]any{"message": map[string]any{
		"id": "msg_mock_" + strconv.Itoa(i), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": tr.Usage.Input, "output_tokens": 1}}})
	if tr.Hang {
		m.hang(r.Context())
		return
	}
	block := 0
	open := func(content map[string]any, delta map[string]any, extra ...map[string]any) {
		event("content_block_start", map[string]any{"index": block, "content_block": content})
		event("content_block_delta", map[string]any{"index": block, "delta": delta})
		for _, d := range extra {
			event("content_block_delta", map[string]any{"index": block, "delta": d})
		}
		event("content_block_stop", map[string]any{"index": block})
		block++
	}
	if tr.Thinking != "" {
		open(map[string]any{"type": "thinking", "thinking": "", "signature": ""},
			map[string]any{"type": "thinking_delta", "thinking": tr.Thinking},
			map[string]any{"type": "signature_delta", "signature": "mock-signature-" + strconv.Itoa(i)})
	}
	if tr.Text != "" {
		open(map[string]any{"type": "text", "text": ""}, map[string]any{"type": "text_delta", "text": tr.Text})
	}
	stop := "end_turn"
	if tr.Shell != "" {
		args, _ := json.Marshal(map[string]any{"command": tr.Shell, "description": "Run the command"})
		open(map[string]any{"type": "tool_use", "id": "toolu_mock_" + strconv.Itoa(i), "name": "bash", "input": map[string]any{}},
			map[string]any{"type": "input_json_delta", "partial_json": string(args)})
		stop = "tool_use"
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": tr.Usage.Output}})
	event("message_stop", map[string]any{})
}

// copilotAnthropicFail answers with the Anthropic API's own error bodies and headers.
func copilotAnthropicFail(w http.ResponseWriter, e *apiError) {
	switch e.Kind {
	case limitError:
		secs := int(e.ResetIn.Round(time.Second) / time.Second)
		reset := time.Now().Add(e.ResetIn).UTC().Format(time.RFC3339)
		w.Header().Set("retry-after", strconv.Itoa(secs))
		w.Header().Set("anthropic-ratelimit-requests-limit", "5")
		w.Header().Set("anthropic-ratelimit-requests-remaining", "0")
		w.Header().Set("anthropic-ratelimit-requests-reset", reset)
		copilotAnthropicError(w, http.StatusTooManyRequests, "rate_limit_error",
			"This request would exceed your organization's rate limit of 5 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.")
	case quotaError:
		copilotAnthropicError(w, http.StatusBadRequest, "invalid_request_error",
			"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")
	case authError:
		copilotAnthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
	case overloadedErr:
		copilotAnthropicError(w, 529, "overloaded_error", "Overloaded")
	default:
		copilotAnthropicError(w, http.StatusInternalServerError, "api_error", "Internal server error")
	}
}

func copilotAnthropicError(w http.ResponseWriter, status int, typ, msg string) {
	body, _ := json.Marshal(map[string]any{"type": "error",
		"error": map[string]any{"type": typ, "message": msg}, "request_id": "req_mock"})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_mock")
	w.WriteHeader(status)
	w.Write(body)
}
