package realagents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// qwen-code (@qwen-code/qwen-code), a fork of gemini-cli whose OpenAI auth type talks
// to any OpenAI-compatible provider with the Chat Completions API: OPENAI_BASE_URL,
// OPENAI_API_KEY and OPENAI_MODEL point it at the mock (openai_chat_test.go). Its
// stream-json output has Claude Code's shape.
func init() {
	register(agentCLI{
		preset: "qwen",
		api: chatDialect{cli: "qwen", model: qwenModel, reasoning: "reasoning_content", describe: true,
			shell: "run_shell_command"}.api,
		configure: configureQwen,
		totals:    qwenTotals,
		// plan mode (--approval-mode plan), headless, denies its shell tool: "Qwen Code
		// requires permission to use "run_shell_command", but that permission was declined."
		judgeRefuses: "but that permission was declined",
		judgeCmd:     "qwen --approval-mode yolo",
		says: map[errorKind]string{
			quotaError: "You exceeded your current quota",
			authError:  "Incorrect API key provided",
		},
		skip: map[string]string{
			"judge-hangs": "its --timeout 15s bounds the agent's own iteration too, and qwen-code's start " +
				"(5 s idle) took 16 s at load 17 on the shared machine: the agent was stopped before any " +
				"judge ran (seen twice); how a hung judge is stopped does not depend on the CLI",
			"quota": "qwen-code retries OpenAI's 429 insufficient_quota for minutes before it gives up, " +
				"even with two retries set (configureQwen): its request retries (7 attempts, 1.5 s doubling " +
				"to 30 s, each with its SDK's own) run inside each of them: 265 s, past the test's 4 minutes; " +
				"then it prints OpenAI's words without the code, read as a limit that resets " +
				"(loop/agentcli's TestReadQwenInsufficientQuota; docs/dev/real-agents.md has the timings)",
			"limit-reset": "qwen-code waits out a 429 itself (its retries honour retry-after): " +
				"the 4 s limit never reaches git-ralph; limit-outlasts-retries plays a longer one",
		},
		more: []scenario{
			// The API keeps saying "try again in 1s" for 100 s: qwen-code's retries run out
			// first (seen with configureQwen's settings: 43 requests a second apart over
			// 47 s, three stream attempts of its request retries, each with its SDK's); it
			// ends with the limit, which is git-ralph's.
			{"limit-outlasts-retries", append([]turn{
				{Fail: &apiError{Kind: limitError, ResetIn: time.Second}, Lasts: 100 * time.Second},
			}, successScript()...), checkLimitReset, nil},
			hungAfterChild,
		},
	})
}

// qwenModel is the model the mock serves; qwen-code takes any name from OPENAI_MODEL.
const qwenModel = "mock-coder"

// configureQwen writes ~/.qwen/settings.json (the OpenAI auth type, nothing that reaches
// the network or runs beside the agent's turn) and the environment naming the mock.
func configureQwen(t *testing.T, home, baseURL string) []string {
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"general":   map[string]any{"enableAutoUpdate": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		// 0.24 asks the model, after every run, to extract durable facts into ~/.qwen
		// (a second request with tools of its own): off, so that each mock request is a
		// turn of the agent's
		"memory": map[string]any{"enableManagedAutoMemory": false},
		// 0.24 retries a 429 ten times, 60 s doubling to 5 min apart when the answer has
		// no retry-after (OpenAI's insufficient_quota has none): still retrying after 55
		// minutes when tried by hand. Two retries, 1 s apart, keep the scenarios shorter;
		// what each error does after qwen-code gives up is the same.
		"model": map[string]any{"generationConfig": map[string]any{"maxRetries": 2, "retryInitialDelayMs": 1000}},
	}
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".qwen", "settings.json"), string(data)+"\n")
	return []string{
		"OPENAI_BASE_URL=" + baseURL + "/v1",
		"OPENAI_API_KEY=sk-mock-0123456789",
		"OPENAI_MODEL=" + qwenModel,
		// anything else it would fetch goes to the mock, which fails the test
		"HTTP_PROXY=" + baseURL, "HTTPS_PROXY=" + baseURL, "http_proxy=" + baseURL, "https_proxy=" + baseURL,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
}

// qwenTotals reads the usage of qwen-code's final result event (stream-json), the
// session's totals.
func qwenTotals(output []byte) (usage, float64, bool) {
	var sum usage
	found := false
	sc := bufio.NewScanner(bytes.NewReader(output))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Type  string `json:"type"`
			Usage *struct {
				Input  int64 `json:"input_tokens"`
				Output int64 `json:"output_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "result" || e.Usage == nil {
			continue
		}
		found = true
		sum = usage{Input: e.Usage.Input, Output: e.Usage.Output}
	}
	return sum, 0, found
}
