package realagents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The OpenAI Chat Completions API, mocked once for every CLI that speaks it: opencode
// (its @ai-sdk/openai-compatible provider) and copilot in BYOK mode (the OpenAI JS SDK).

// chatDialect is what differs between the CLIs that speak Chat Completions to the mock.
type chatDialect struct {
	cli   string // the CLI's name, for the test's messages
	model string // the model the CLI is configured with: GET /v1/models lists it
	// reasoning is the delta field the CLI reads the model's reasoning from: the
	// openai-compatible SDK's reasoning_content (opencode), copilot's reasoning_text.
	reasoning string
	// describe: the CLI's bash tool takes a description with its command (copilot's;
	// opencode 1.18's declares command, timeout and workdir, no description).
	describe bool
	// shell is the name of the CLI's shell tool: "bash" when empty (opencode, copilot),
	// qwen-code's run_shell_command.
	shell string
}

// shellTool is the name of the tool the mock's turns call to run a command.
func (d chatDialect) shellTool() string {
	if d.shell == "" {
		return "bash"
	}
	return d.shell
}

// chatRequest is the part of a Chat Completions request the mock reads.
type chatRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// side reports whether req is the CLI's own question (opencode's session title),
// answered without taking a turn: it offers the model no tools.
func (req chatRequest) side() bool { return len(req.Tools) == 0 }

// checkShellTool checks that the request offers the shell tool the mock's turns call,
// with its command parameter: a renamed tool fails the test here, not as a mystery in
// the CLI.
func (req chatRequest) checkShellTool(cli, shell string) error {
	var names []string
	for _, tool := range req.Tools {
		if tool.Function.Name == shell {
			if !bytes.Contains(tool.Function.Parameters, []byte(`"command"`)) {
				return fmt.Errorf("%s's %s tool has no command parameter: %s", cli, shell, tool.Function.Parameters)
			}
			return nil
		}
		names = append(names, tool.Function.Name)
	}
	return fmt.Errorf("%s offers no %s tool, only %v", cli, shell, names)
}

// api is the OpenAI Chat Completions API in the CLI's dialect (an agentCLI's api): POST
// /v1/chat/completions, answered with server-sent chunks when the request streams, and
// GET /v1/models listing the one model. Any other request fails the test.
func (d chatDialect) api(m *mock) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, nil, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": d.model, "object": "model", "created": 1700000000, "owned_by": "mock"}}})
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		body, err := io.ReadAll(r.Body)
		if err == nil {
			err = json.Unmarshal(body, &req)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.side() {
			d.writeChat(w, req, turn{Text: "Add agent.txt"}, usage{Input: 50, Output: 5})
			return
		}
		tr, _ := m.take(r.URL.Path, body)
		switch {
		case tr.Fail != nil:
			d.writeError(w, r, *tr.Fail)
		case tr.Hang:
			startChat(w, req)
			m.hang(r.Context())
		default:
			if tr.Shell != "" && !m.judged(body) {
				if err := req.checkShellTool(d.cli, d.shellTool()); err != nil {
					m.t.Error(err)
				}
			}
			d.writeChat(w, req, tr, tr.Usage)
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		m.t.Errorf("the mock got an unexpected request: %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// the mock is also opencode's HTTP(S) proxy (configureOpencode): whatever it
		// tries to reach beyond the mock ends here, and fails the test
		if r.Method == http.MethodConnect || !strings.HasPrefix(r.Host, "127.0.0.1:") {
			m.t.Errorf("%s tried to reach the network: %s %s", d.cli, r.Method, r.Host)
			http.Error(w, "no network in this test", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// chunk is one streamed Chat Completions chunk.
type chunk struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []chunkChoice  `json:"choices"`
	Usage   map[string]any `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int            `json:"index"`
	Delta        map[string]any `json:"delta"`
	FinishReason *string        `json:"finish_reason"`
}

// startChat sends the stream's headers and its first chunk (the assistant's role).
func startChat(w http.ResponseWriter, req chatRequest) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sendChunk(w, req, &chunkChoice{Delta: map[string]any{"role": "assistant", "content": ""}}, nil)
}

// writeChat renders tr as a streamed answer: reasoning, text, a call of the bash tool,
// the finish reason, then the usage. OpenAI itself sends the usage chunk only when asked
// (stream_options.include_usage, which opencode sets); the mock always does, as
// OpenAI-compatible providers commonly do and as copilot was always answered.
func (d chatDialect) writeChat(w http.ResponseWriter, req chatRequest, tr turn, u usage) {
	if !req.Stream {
		writeChatJSON(w, req, tr, u)
		return
	}
	startChat(w, req)
	if tr.Thinking != "" {
		for _, part := range halves(tr.Thinking) {
			sendChunk(w, req, &chunkChoice{Delta: map[string]any{d.reasoning: part}}, nil)
		}
	}
	if tr.Text != "" {
		for _, part := range halves(tr.Text) {
			sendChunk(w, req, &chunkChoice{Delta: map[string]any{"content": part}}, nil)
		}
	}
	finish := "stop"
	if tr.Shell != "" {
		finish = "tool_calls"
		input := map[string]string{"command": tr.Shell}
		if d.describe {
			input["description"] = "Run the command"
		}
		args, _ := json.Marshal(input)
		id := "call_" + strconv.FormatInt(time.Now().UnixNano(), 36)
		// the name and id first, the arguments in two pieces, as OpenAI streams them
		sendChunk(w, req, &chunkChoice{Delta: map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "id": id, "type": "function", "function": map[string]any{"name": d.shellTool(), "arguments": ""}}}}}, nil)
		for _, part := range halves(string(args)) {
			sendChunk(w, req, &chunkChoice{Delta: map[string]any{"tool_calls": []any{map[string]any{
				"index": 0, "function": map[string]any{"arguments": part}}}}}, nil)
		}
	}
	sendChunk(w, req, &chunkChoice{Delta: map[string]any{}, FinishReason: &finish}, nil)
	sendChunk(w, req, nil, openAIUsage(tr, u))
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush(w)
}

// openAIUsage is a chunk's usage: the input tokens include a cached tenth, the output
// tokens a reasoning quarter when the turn thinks, as OpenAI counts them.
func openAIUsage(tr turn, u usage) map[string]any {
	cached, reasoning := u.Input/10, int64(0)
	if tr.Thinking != "" {
		reasoning = u.Output / 4
	}
	return map[string]any{
		"prompt_tokens":             u.Input,
		"completion_tokens":         u.Output,
		"total_tokens":              u.Input + u.Output,
		"prompt_tokens_details":     map[string]int64{"cached_tokens": cached},
		"completion_tokens_details": map[string]int64{"reasoning_tokens": reasoning},
	}
}

// sendChunk writes one "data:" event: a choice, or (choice nil) the usage chunk, whose
// choices are empty.
func sendChunk(w http.ResponseWriter, req chatRequest, choice *chunkChoice, u map[string]any) {
	c := chunk{ID: "chatcmpl-mock", Object: "chat.completion.chunk", Created: time.Now().Unix(),
		Model: req.Model, Choices: []chunkChoice{}, Usage: u}
	if choice != nil {
		c.Choices = append(c.Choices, *choice)
	}
	data, _ := json.Marshal(c)
	fmt.Fprintf(w, "data: %s\n\n", data)
	flush(w)
}

// writeChatJSON answers a request that does not stream with one chat.completion.
func writeChatJSON(w http.ResponseWriter, req chatRequest, tr turn, u usage) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-mock", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": tr.Text}}},
		"usage": openAIUsage(tr, u),
	})
}

// writeError answers with OpenAI's error body, status and rate-limit headers.
func (d chatDialect) writeError(w http.ResponseWriter, r *http.Request, e apiError) {
	status, body := http.StatusInternalServerError, map[string]any{}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("x-request-id", "req_mock0123456789")
	switch e.Kind {
	case limitError:
		status = http.StatusTooManyRequests
		secs := max(1, int(e.ResetIn.Round(time.Second)/time.Second))
		h.Set("x-ratelimit-limit-requests", "500")
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("x-ratelimit-reset-requests", fmt.Sprintf("%ds", secs))
		h.Set("x-ratelimit-limit-tokens", "30000")
		h.Set("x-ratelimit-remaining-tokens", "0")
		h.Set("x-ratelimit-reset-tokens", fmt.Sprintf("%ds", secs))
		h.Set("retry-after", strconv.Itoa(secs))
		body = openAIErr(fmt.Sprintf("Rate limit reached for %s in organization org-mock on requests per min (RPM): "+
			"Limit 500, Used 500, Requested 1. Please try again in %ds. Visit https://platform.openai.com/account/rate-limits to learn more.",
			d.model, secs), "requests", "rate_limit_exceeded")
	case quotaError:
		status = http.StatusTooManyRequests
		body = openAIErr("You exceeded your current quota, please check your plan and billing details. For more information "+
			"on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
			"insufficient_quota", "insufficient_quota")
	case authError:
		status = http.StatusUnauthorized
		body = openAIErr("Incorrect API key provided: "+maskedKey(r)+". You can find your API key at "+
			"https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")
	case serverError:
		body = openAIErr("The server had an error while processing your request. Sorry about that!", "server_error", nil)
	case overloadedErr:
		status = http.StatusServiceUnavailable
		body = openAIErr("The engine is currently overloaded, please try again later.", "server_error", nil)
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func openAIErr(msg, typ string, code any) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}}
}

// maskedKey is the request's API key as OpenAI quotes it in a 401: its first eight and
// last four characters (opencode's sk-mock-0123456789: sk-mock-**********6789).
func maskedKey(r *http.Request) string {
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if len(key) < 12 {
		return "**********"
	}
	return key[:8] + "**********" + key[len(key)-4:]
}
