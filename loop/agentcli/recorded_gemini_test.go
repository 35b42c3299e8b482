package agentcli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What gemini-cli 0.61.0 printed in each scenario of realagents (the real CLI against a
// mock of the Gemini API), recorded with RALPH_REALAGENTS_RECORD into
// testdata/recorded/gemini: SCENARIO-ITERATION-ATTEMPT.out, and each attempt's exit code
// in exits.txt. Each recording must have its expectation here, and each expectation
// its recording.
var recordedGemini = map[string]want{
	// The model's words (split across two deltas) around a run_shell_command call that
	// committed; the prompt, echoed as a user event, holds the promise too.
	"success-1-1.out": {structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>")},
	// The tags in a thinking block (gemini prints no thoughts), in the tool's input and in
	// its output: none is the agent's words.
	"tags-not-in-words-1-1.out": {structured: true,
		saidExactly: ptr("I wrote a note. The work is not finished yet."), notSaid: []string{"<promise>SUCCESS</promise>"}},
	// A 429 RESOURCE_EXHAUSTED with a per-minute QuotaFailure and RetryInfo 4s: gemini's
	// RetryableQuotaError, "Please retry in 4.000000s." (exit 173 = 429 mod 256).
	"limit-reset-1-1.out": {structured: true, isError: true,
		limit: &wantLimit{message: "You exceeded your current quota", resetAt: now.Add(4 * time.Second)},
		err:   "Quota exceeded for metric"},
	"limit-reset-1-2.out": {structured: true, said: []string{"<promise>SUCCESS</promise>"}},
	// A 429 whose QuotaFailure names a PerDay quota: gemini's TerminalQuotaError, in its
	// own words; waiting will not clear it soon.
	"quota-1-1.out": {structured: true, isError: true,
		limit: &wantLimit{message: "You have exhausted your daily quota on this model.", permanent: true},
		err:   "daily quota"},
	// A 401 UNAUTHENTICATED (exit 145 = 401 mod 256).
	"bad-credentials-1-1.out": {structured: true, isError: true, saidExactly: ptr(""),
		fatal: "API Error: 401 UNAUTHENTICATED: Request had invalid authentication credentials", hint: "GEMINI_API_KEY"},
	// A 500 INTERNAL (exit 244), then a 503 UNAVAILABLE, which gemini calls a
	// RetryableQuotaError (exit 247), then the answer.
	"server-errors-1-1.out": {structured: true, isError: true, saidExactly: ptr(""),
		transient: "API Error: 500 INTERNAL: An internal error has occurred"},
	"server-errors-1-2.out": {structured: true, isError: true, saidExactly: ptr(""),
		transient: "The model is overloaded. Please try again later."},
	"server-errors-1-3.out": {structured: true, said: []string{"<promise>SUCCESS</promise>"}},
	// A stream that never ended, stopped by the iteration timeout: gemini exits 0 on
	// SIGTERM, with the init event and the echoed prompt only.
	"hung-stream-1-1.out": {structured: true, saidExactly: ptr(""), notSaid: []string{"<promise>SUCCESS</promise>"}},
	// The same after a tool call that left a process in the background.
	"hung-after-child-1-1.out": {structured: true, saidExactly: ptr("Starting a watcher."), notSaid: []string{"<promise>SUCCESS</promise>"}},
}

func TestRecordedGemini(t *testing.T) {
	dir := filepath.Join("testdata", "recorded", "gemini")
	exits := recordedExits(t, dir)
	for name := range recordedGemini {
		if _, ok := exits[name]; !ok {
			t.Errorf("%s: an expectation without a recording in %s/exits.txt", name, dir)
		}
	}
	for name, exit := range exits {
		t.Run(strings.TrimSuffix(name, ".out"), func(t *testing.T) {
			w, ok := recordedGemini[name]
			if !ok {
				t.Fatalf("%s is recorded but has no expectation in recordedGemini", name)
			}
			output, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			got := read(t, "gemini", output, exit)
			check(t, got, w)
			checkGeminiStats(t, output, got.Usage)
		})
	}
}

// checkGeminiStats checks the tokens read against gemini's own totals, read here on
// their own from the stats of its result event (none when it printed no result).
func checkGeminiStats(t *testing.T, output []byte, got Usage) {
	t.Helper()
	var want Usage
	for line := range bytes.Lines(output) {
		var e struct {
			Type  string `json:"type"`
			Stats *struct {
				TotalTokens int64 `json:"total_tokens"`
				InputTokens int64 `json:"input_tokens"`
				Cached      int64 `json:"cached"`
			} `json:"stats"`
		}
		if json.Unmarshal(bytes.TrimSpace(line), &e) == nil && e.Type == "result" && e.Stats != nil {
			// output with the thoughts: total_tokens is input + output + thoughts
			want = Usage{InputTokens: e.Stats.InputTokens, OutputTokens: e.Stats.TotalTokens - e.Stats.InputTokens, CacheReadTokens: e.Stats.Cached, CachedInInput: true}
		}
	}
	if got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens || got.CacheReadTokens != want.CacheReadTokens {
		t.Errorf("tokens in %d, out %d, cached %d; gemini's own result stats: in %d, out %d, cached %d",
			got.InputTokens, got.OutputTokens, got.CacheReadTokens, want.InputTokens, want.OutputTokens, want.CacheReadTokens)
	}
	if got.CostUSD != 0 || got.HasCost {
		t.Errorf("cost %v (has cost %v): gemini prints none", got.CostUSD, got.HasCost)
	}
}
