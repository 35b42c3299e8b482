package realagents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gemini-cli against a mock of the Gemini API (generativelanguage.googleapis.com):
// POST /v1beta/models/{model}:streamGenerateContent?alt=sse answers the model's turns in
// server-sent events; generateContent (routing, next-speaker and loop checks) and
// countTokens are side requests, answered without taking a turn.
func init() {
	register(agentCLI{
		preset:    "gemini",
		api:       geminiAPI,
		configure: geminiConfigure,
		totals:    geminiTotals,
		// plan mode (--approval-mode plan) offers the judge no shell tool at all
		judgeRefuses: `Tool \"run_shell_command\" not found`,
		judgeCmd:     "gemini --approval-mode yolo --skip-trust",
		says: map[errorKind]string{
			// gemini-cli's own words for a daily quota (its TerminalQuotaError)
			quotaError: "You have exhausted your daily quota on this model.",
			authError:  "Request had invalid authentication credentials",
		},
		more: []scenario{hungAfterChild},
	})
}

// geminiConfigure points gemini-cli at the mock: GOOGLE_GEMINI_BASE_URL, a fake API key,
// and the API-key auth method in settings (without it gemini says "Invalid auth method
// selected." and exits 41). Everything that would reach the network is off, and
// gemini-cli's own retries are bounded so that git-ralph's handling of each error is
// what the scenarios test.
func geminiConfigure(t *testing.T, home, baseURL string) []string {
	settings := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		// one attempt per request: gemini-cli would otherwise retry a 429 or a 5xx up to
		// 10 times, 5 s doubling to 30 s apart
		"general": map[string]any{
			"maxAttempts":                  1,
			"enableAutoUpdate":             false,
			"enableAutoUpdateNotification": false,
		},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"ide":       map[string]any{"enabled": false},
	}
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), string(data)+"\n")
	return []string{
		"GOOGLE_GEMINI_BASE_URL=" + baseURL,
		"GEMINI_API_KEY=fake-key-for-the-mock",
		// gemini-cli relaunches itself in a second node process with a bigger heap; one
		// process starts faster and leaves one less to stop
		"GEMINI_CLI_NO_RELAUNCH=true",
		// No GIT_AUTHOR_*: gemini runs its shell tool with GIT_CONFIG_GLOBAL=/dev/null, and
		// the agent's commit in the success scenario works only because git-ralph hands it
		// the identity of the run's ~/.gitconfig (agentcli.Preset.GitIdentity).
	}
}

// geminiTotals reads gemini's own totals: the stats of its stream-json result event,
// the output with the thoughts (total_tokens less the input: gemini's output_tokens leaves
// them out, and they are billed as output). gemini prints no cost.
func geminiTotals(output []byte) (usage, float64, bool) {
	var tokens usage
	found := false
	for _, line := range strings.Split(string(output), "\n") {
		var e struct {
			Type  string `json:"type"`
			Stats *struct {
				TotalTokens int64 `json:"total_tokens"`
				InputTokens int64 `json:"input_tokens"`
			} `json:"stats"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(line)), &e) != nil || e.Type != "result" || e.Stats == nil {
			continue
		}
		tokens, found = usage{Input: e.Stats.InputTokens, Output: e.Stats.TotalTokens - e.Stats.InputTokens}, true
	}
	return tokens, 0, found
}

// geminiAPI is the mock's handler.
func geminiAPI(m *mock) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if os.Getenv("RALPH_GEMINI_MOCK_LOG") != "" {
			m.t.Logf("mock: %s %s %.300s", req.Method, req.URL, body)
		}
		model, method, _ := strings.Cut(req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:], ":")
		switch {
		case req.Method == http.MethodPost && method == "streamGenerateContent":
			tr, _ := m.take(req.URL.Path, body)
			if tr.Fail != nil {
				geminiError(w, tr.Fail)
				return
			}
			if tr.Shell != "" && !m.judged(body) {
				geminiCheckShellTool(m, body)
			}
			geminiStream(w, req, m, tr, model)
		case req.Method == http.MethodPost && method == "countTokens":
			geminiJSON(w, http.StatusOK, map[string]any{"totalTokens": 100})
		case req.Method == http.MethodPost && method == "generateContent":
			geminiSide(w, model, body)
		case req.Method == http.MethodGet:
			geminiJSON(w, http.StatusOK, map[string]any{"models": []any{}})
		default:
			http.NotFound(w, req)
		}
	})
}

// geminiStream renders a turn as the API's server-sent events: the thinking block as a
// thought part, the words, the shell tool call as a functionCall, then the finish
// reason and the usage.
func geminiStream(w http.ResponseWriter, req *http.Request, m *mock, tr turn, model string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	send := func(parts []map[string]any, finish string, u *usage) {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		ev := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": "mock-response"}
		if u != nil {
			// gemini's result stats leave thoughts out of output_tokens (only total_tokens
			// has them): a reader that dropped them would be caught
			ev["usageMetadata"] = map[string]any{
				"promptTokenCount": u.Input, "candidatesTokenCount": u.Output,
				"thoughtsTokenCount": 7, "totalTokenCount": u.Input + u.Output + 7,
			}
		}
		data, _ := json.Marshal(ev)
		fmt.Fprintf(w, "data: %s\r\n\r\n", data)
		flush(w)
	}
	if tr.Hang {
		send([]map[string]any{{"text": "Let me think", "thought": true}}, "", nil)
		m.hang(req.Context())
		return
	}
	if tr.Thinking != "" {
		send([]map[string]any{{"text": tr.Thinking, "thought": true}}, "", nil)
	}
	if tr.Text != "" {
		// two chunks: a promise tag may be cut between two events
		half := len(tr.Text) / 2
		send([]map[string]any{{"text": tr.Text[:half]}}, "", nil)
		send([]map[string]any{{"text": tr.Text[half:]}}, "", nil)
	}
	var last []map[string]any
	if tr.Shell != "" {
		last = []map[string]any{{"functionCall": map[string]any{
			"name": geminiShellTool,
			"args": map[string]any{geminiShellArg: tr.Shell, "description": "run the command"},
		}}}
	} else {
		last = []map[string]any{{"text": ""}}
	}
	send(last, "STOP", &tr.Usage)
}

// geminiShellTool is the tool the mock calls, and its parameter for the command line
// (gemini-cli 0.61: run_shell_command {command, description, dir_path, is_background}).
const geminiShellTool, geminiShellArg = "run_shell_command", "command"

// geminiCheckShellTool fails the test when the request does not declare the shell tool
// the mock is about to call: a newer gemini that renamed it would otherwise only be
// seen as a tool call that fails.
func geminiCheckShellTool(m *mock, body []byte) {
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Name       string `json:"name"`
				Parameters struct {
					Properties map[string]any `json:"properties"`
				} `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	var names []string
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			if f.Name == geminiShellTool && f.Parameters.Properties[geminiShellArg] != nil {
				return
			}
			names = append(names, f.Name)
		}
	}
	m.t.Errorf("gemini's request declares no %s tool with a %q parameter; its tools: %v", geminiShellTool, geminiShellArg, names)
}

// geminiSide answers a side request (generateContent: the router's complexity score,
// the next-speaker and loop checks) with a JSON object of the schema the request asks
// for: the first value of each enum, "mock" for a string, 1 for a number.
func geminiSide(w http.ResponseWriter, model string, body []byte) {
	var req struct {
		GenerationConfig struct {
			Schema map[string]any `json:"responseJsonSchema"`
		} `json:"generationConfig"`
	}
	_ = json.Unmarshal(body, &req)
	answer, _ := json.Marshal(geminiFill(req.GenerationConfig.Schema))
	geminiJSON(w, http.StatusOK, map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": string(answer)}}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 50, "candidatesTokenCount": 2, "totalTokenCount": 52},
		"modelVersion":  model,
	})
}

// geminiFill makes a value of the JSON schema s.
func geminiFill(s map[string]any) any {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := s["type"].(string)
	switch strings.ToLower(typ) {
	case "string":
		return "mock"
	case "number", "integer":
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		if ps, ok := p.(map[string]any); ok {
			out[name] = geminiFill(ps)
		}
	}
	return out
}

// geminiError answers a failing turn with the API's own error body: google.rpc status
// JSON with the details gemini-cli reads to tell a retryable per-minute quota
// (QuotaFailure PerMinute, RetryInfo) from a terminal daily one (QuotaFailure PerDay).
func geminiError(w http.ResponseWriter, e *apiError) {
	const rates = "https://ai.google.dev/gemini-api/docs/rate-limits"
	quota := func(id string, limit int, retry time.Duration) []any {
		return []any{
			map[string]any{
				"@type": "type.googleapis.com/google.rpc.QuotaFailure",
				"violations": []any{map[string]any{
					"quotaMetric":     "generativelanguage.googleapis.com/generate_content_free_tier_requests",
					"quotaId":         id,
					"quotaDimensions": map[string]any{"location": "global", "model": "gemini-2.5-pro"},
					"quotaValue":      fmt.Sprint(limit),
				}},
			},
			map[string]any{
				"@type": "type.googleapis.com/google.rpc.Help",
				"links": []any{map[string]any{"description": "Learn more about Gemini API quotas", "url": rates}},
			},
			map[string]any{
				"@type":      "type.googleapis.com/google.rpc.RetryInfo",
				"retryDelay": fmt.Sprintf("%ds", int(retry.Seconds())),
			},
		}
	}
	exceeded := func(limit int, retry time.Duration) string {
		return "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: " + rates + ". To monitor your current usage, head to: https://ai.dev/rate-limit. \n" +
			fmt.Sprintf("* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: %d, model: gemini-2.5-pro\nPlease retry in %.6fs.", limit, retry.Seconds())
	}
	var (
		status  int
		code    string
		msg     string
		details []any
	)
	switch e.Kind {
	case limitError:
		reset := e.ResetIn
		status, code, msg = 429, "RESOURCE_EXHAUSTED", exceeded(5, reset)
		details = quota("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", 5, reset)
	case quotaError:
		status, code, msg = 429, "RESOURCE_EXHAUSTED", exceeded(100, 13*time.Hour)
		details = quota("GenerateRequestsPerDayPerProjectPerModel-FreeTier", 100, 13*time.Hour)
	case authError:
		status, code = 401, "UNAUTHENTICATED"
		msg = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
	case serverError:
		status, code, msg = 500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	case overloadedErr:
		status, code, msg = 503, "UNAVAILABLE", "The model is overloaded. Please try again later."
	default:
		panic("gemini mock: no error body for " + string(e.Kind))
	}
	body := map[string]any{"code": status, "message": msg, "status": code}
	if details != nil {
		body["details"] = details
	}
	geminiJSON(w, status, map[string]any{"error": body})
}

func geminiJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	w.Write(data)
}
