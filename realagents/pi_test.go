package realagents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// pi (@mariozechner/pi-coding-agent) with a custom provider of its models.json
// (~/.pi/agent/models.json): api "openai-completions" at the mock's base URL, so its mock
// is the Chat Completions API (openai_chat_test.go). settings.json makes that provider
// and model the default; PI_OFFLINE=1 turns off its startup network requests (update
// checks, install telemetry).
func init() {
	register(agentCLI{
		preset:    "pi",
		api:       chatDialect{cli: "pi", model: piModel, reasoning: "reasoning_content"}.api,
		configure: configurePi,
		totals:    piTotals,
		// --tools read,grep,find,ls offers the judge no bash tool at all
		judgeRefuses: "Tool bash not found",
		judgeCmd:     "pi -p",
		says: map[errorKind]string{
			quotaError: "You exceeded your current quota",
			authError:  "Incorrect API key provided",
		},
		skip: map[string]string{
			"quota": "pi prints only the provider's message of a failed call, not its error code: OpenAI's " +
				"429 insufficient_quota says \"You exceeded your current quota, please check your plan and " +
				"billing details\", words that also fit a quota that resets, so git-ralph reads a limit " +
				"that resets and waits (seen: it ran pi again and again until the test's 4 minutes); " +
				"loop/agentcli's TestReadRecordedPi reads that recording",
			"limit-reset": "pi waits out a 429 itself (its OpenAI SDK honours retry-after, and pi retries " +
				"the prompt): the 4 s limit never reaches git-ralph; limit-outlasts-retries plays a longer one",
		},
		more: []scenario{
			// The API keeps saying "try again in 1s" for 15 s: pi's retries (one of the
			// prompt, configurePi, each with its SDK's two) run out first; it ends with the
			// limit, which is git-ralph's.
			{"limit-outlasts-retries", append([]turn{
				{Fail: &apiError{Kind: limitError, ResetIn: time.Second}, Lasts: 15 * time.Second},
			}, successScript()...), checkLimitReset, nil},
			hungAfterChild,
		},
	})
}

// piModel is the mock provider's model; its prices (USD per million tokens) make pi
// compute a cost of its own for every message.
const piModel = "mock-coder"

func configurePi(t *testing.T, home, baseURL string) []string {
	dir := filepath.Join(home, ".pi", "agent")
	models := map[string]any{"providers": map[string]any{"mock": map[string]any{
		"baseUrl": baseURL + "/v1",
		"api":     "openai-completions",
		"apiKey":  "sk-mock-0123456789",
		"models": []any{map[string]any{
			"id": piModel, "name": "Mock Coder", "reasoning": true,
			"contextWindow": 200000, "maxTokens": 32000,
			"cost": map[string]float64{"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
		}},
	}}}
	settings := map[string]any{
		"defaultProvider":        "mock",
		"defaultModel":           piModel,
		"enableInstallTelemetry": false,
		// pi retries a failed prompt 3 times, 2 s doubling (and its SDK each request
		// twice more): one retry keeps the limit scenarios short
		"retry": map[string]any{"maxRetries": 1},
	}
	for name, v := range map[string]any{"models.json": models, "settings.json": settings} {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), string(data)+"\n")
	}
	return []string{
		"PI_OFFLINE=1",
		// anything else it would fetch goes to the mock, which fails the test
		"HTTP_PROXY=" + baseURL, "HTTPS_PROXY=" + baseURL, "http_proxy=" + baseURL, "https_proxy=" + baseURL,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
}

// piTotals adds up the usage and cost of every assistant message pi printed whole
// (message_end), as its own session statistics do.
func piTotals(output []byte) (usage, float64, bool) {
	var sum usage
	var cost float64
	found := false
	sc := bufio.NewScanner(bytes.NewReader(output))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Role  string `json:"role"`
				Usage *struct {
					Input, Output int64
					Cost          struct{ Total float64 }
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "message_end" || e.Message.Role != "assistant" || e.Message.Usage == nil {
			continue
		}
		found = true
		sum.Input += e.Message.Usage.Input
		sum.Output += e.Message.Usage.Output
		cost += e.Message.Usage.Cost.Total
	}
	return sum, cost, found
}
