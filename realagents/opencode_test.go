package realagents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// opencode talks to the mock through an OpenAI-compatible provider of its own config
// (the @ai-sdk/openai-compatible package is bundled in its binary: nothing is installed
// at run time), so its mock is the OpenAI Chat Completions API with server-sent events.
func init() {
	register(agentCLI{
		preset:    "opencode",
		api:       chatDialect{cli: "opencode", model: opencodeModel, reasoning: "reasoning_content"}.api,
		configure: configureOpencode,
		totals:    opencodeTotals,
		// the plan agent with bash denied offers the judge no bash tool at all
		judgeRefuses: "Model tried to call unavailable tool 'bash'",
		judgeCmd:     "opencode run --auto",
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
			}, successScript()...), checkLimitReset, nil},
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
