package realagents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// opencode talks to the mock through an OpenAI-compatible provider of its own config
// (the @ai-sdk/openai-compatible package is bundled in its binary: nothing is installed
// at run time), so its mock is the OpenAI Chat Completions API with server-sent events.
func init() {
	register(agentCLI{
		preset:    "opencode",
		api:       chatCompletionsAPI,
		configure: configureOpencode,
		totals:    opencodeTotals,
		says: map[errorKind]string{
			quotaError: "You exceeded your current quota",
			authError:  "Incorrect API key provided",
		},
		skip: map[string]string{
			"limit-reset": "opencode waits out a limit that resets within its own retries " +
				"(it honours retry-after, five times): git-ralph never sees it; " +
				"limit-outlasts-retries plays a longer one",
		},
		more: []scenario{
			// The API keeps saying "try again in 1s" for 15 s: opencode's five retries,
			// a second apart, run out first (with room for a loaded machine); it exits
			// with the limit, which is git-ralph's.
			{"limit-outlasts-retries", append([]turn{
				{Fail: &apiError{Kind: limitError, ResetIn: time.Second}, Lasts: 15 * time.Second},
			}, successScript()...), checkLimitReset},
		},
	})
}

// opencodeModel is the mock provider's model; its prices (USD per million tokens) make
// opencode compute a cost of its own for every step.
const opencodeModel = "mock-coder"

// configureOpencode writes the global config (an OpenAI-compatible provider "mock" at
// baseURL, and nothing that reaches the network) and the environment that keeps opencode
// from fetching models.dev, updating itself or sharing sessions.
func configureOpencode(t *testing.T, home, baseURL string) []string {
	dir := filepath.Join(home, ".config", "opencode")
	config := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"model":      "mock/" + opencodeModel,
		// the title of a session is asked of the small model: the same mock answers it
		"small_model": "mock/" + opencodeModel,
		"provider": map[string]any{
			"mock": map[string]any{
				"npm":  "@ai-sdk/openai-compatible",
				"name": "Mock",
				"options": map[string]any{
					"baseURL": baseURL + "/v1",
					"apiKey":  "sk-mock-0123456789",
				},
				"models": map[string]any{
					opencodeModel: map[string]any{
						"name":      "Mock Coder",
						"reasoning": true,
						"tool_call": true,
						"cost":      map[string]float64{"input": 3, "output": 15, "cache_read": 0.3},
						"limit":     map[string]int{"context": 200000, "output": 32000},
					},
				},
			},
		},
	}
	data, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "opencode.json"), string(data))
	// opencode installs @opencode-ai/plugin from npm into every config directory that
	// has no node_modules, or whose package-lock.json lacks a dependency of its
	// package.json (Npm.install in its source). A lock that lists it and an empty
	// node_modules stop that install, and with it every request to the npm registry.
	writeFile(t, filepath.Join(dir, "package-lock.json"),
		`{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"*"}}}}`+"\n")
	writeFile(t, filepath.Join(dir, "node_modules", ".keep"), "")
	return []string{
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		// anything else it would fetch (npm, models.dev, GitHub) goes to the mock, which
		// fails the test
		"HTTP_PROXY=" + baseURL, "HTTPS_PROXY=" + baseURL, "http_proxy=" + baseURL, "https_proxy=" + baseURL,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
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
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// side reports whether req is opencode's own question (a session's title), answered
// without taking a turn: it offers the model no tools.
func (req chatRequest) side() bool { return len(req.Tools) == 0 }

// checkShellTool checks that the request offers the bash tool the mock's turns call, with
// its command parameter: a renamed tool fails the test here, not as a mystery in the CLI.
func (req chatRequest) checkShellTool() error {
	var names []string
	for _, tool := range req.Tools {
		if tool.Function.Name == "bash" {
			if !bytes.Contains(tool.Function.Parameters, []byte(`"command"`)) {
				return fmt.Errorf("opencode's bash tool has no command parameter: %s", tool.Function.Parameters)
			}
			return nil
		}
		names = append(names, tool.Function.Name)
	}
	return fmt.Errorf("opencode offers no bash tool, only %v", names)
}

// chatCompletionsAPI is the OpenAI Chat Completions API: POST /v1/chat/completions,
// answered with server-sent chunks when the request streams.
func chatCompletionsAPI(m *mock) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.side() {
			writeChat(w, req, turn{Text: "Add agent.txt"}, usage{Input: 50, Output: 5})
			return
		}
		tr, _ := m.take(r.URL.Path)
		switch {
		case tr.Fail != nil:
			writeOpenAIError(w, *tr.Fail)
		case tr.Hang:
			startChat(w, req)
			m.hang(r.Context())
		default:
			if tr.Shell != "" {
				if err := req.checkShellTool(); err != nil {
					m.t.Error(err)
				}
			}
			writeChat(w, req, tr, tr.Usage)
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
			m.t.Errorf("opencode tried to reach the network: %s %s", r.Method, r.Host)
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
// the finish reason, then the usage when the request asked for it.
func writeChat(w http.ResponseWriter, req chatRequest, tr turn, u usage) {
	if !req.Stream {
		writeChatJSON(w, req, tr, u)
		return
	}
	startChat(w, req)
	if tr.Thinking != "" {
		for _, part := range halves(tr.Thinking) {
			sendChunk(w, req, &chunkChoice{Delta: map[string]any{"reasoning_content": part}}, nil)
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
		// opencode 1.18 declares command, timeout and workdir: no description
		args, _ := json.Marshal(map[string]string{"command": tr.Shell})
		id := "call_" + strconv.FormatInt(time.Now().UnixNano(), 36)
		// the name and id first, the arguments in two pieces, as OpenAI streams them
		sendChunk(w, req, &chunkChoice{Delta: map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": ""}}}}}, nil)
		for _, part := range halves(string(args)) {
			sendChunk(w, req, &chunkChoice{Delta: map[string]any{"tool_calls": []any{map[string]any{
				"index": 0, "function": map[string]any{"arguments": part}}}}}, nil)
		}
	}
	sendChunk(w, req, &chunkChoice{Delta: map[string]any{}, FinishReason: &finish}, nil)
	if req.StreamOptions.IncludeUsage {
		sendChunk(w, req, nil, openAIUsage(tr, u))
	}
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

// writeOpenAIError answers with OpenAI's error body, status and rate-limit headers.
func writeOpenAIError(w http.ResponseWriter, e apiError) {
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
			opencodeModel, secs), "requests", "rate_limit_exceeded")
	case quotaError:
		status = http.StatusTooManyRequests
		body = openAIErr("You exceeded your current quota, please check your plan and billing details. For more information "+
			"on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
			"insufficient_quota", "insufficient_quota")
	case authError:
		status = http.StatusUnauthorized
		body = openAIErr("Incorrect API key provided: sk-mock-**********6789. You can find your API key at "+
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

// opencodeTotals adds up the tokens and cost of every step_finish event opencode printed
// (`opencode run --format json`) as its own statistics do (`opencode stats`): the input
// it counts (without cache reads), and the output with the reasoning tokens, which it
// reports apart but bills as output.
func opencodeTotals(output []byte) (usage, float64, bool) {
	var sum usage
	var cost float64
	found := false
	sc := bufio.NewScanner(bytes.NewReader(output))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Type string `json:"type"`
			Part struct {
				Cost   float64 `json:"cost"`
				Tokens struct {
					Input, Output, Reasoning int64
				} `json:"tokens"`
			} `json:"part"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "step_finish" {
			continue
		}
		found = true
		sum.Input += e.Part.Tokens.Input
		sum.Output += e.Part.Tokens.Output + e.Part.Tokens.Reasoning
		cost += e.Part.Cost
	}
	return sum, cost, found
}
