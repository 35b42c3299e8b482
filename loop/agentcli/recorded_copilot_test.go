package agentcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recordedCopilot is what the reader must make of each run of the real copilot CLI
// (@github/copilot, realagents/versions.txt) that realagents recorded against its mock
// of an OpenAI-compatible provider (BYOK), one file per scenario and attempt.
var recordedCopilot = map[string]want{
	"success-1-1.out": {structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>"),
		usage:       &Usage{Model: "gpt-4.1"}},
	// the promise tags were in the reasoning, the bash tool's input and its output
	"tags-not-in-words-1-1.out": {structured: true,
		saidExactly: ptr("I wrote a note. The work is not finished yet."), usage: &Usage{Model: "gpt-4.1"}},
	// 401: copilot retries, then says so in its own words
	"bad-credentials-1-1.out": {structured: true, isError: true,
		fatal: "Authentication failed with provider at $MOCK/v1 (HTTP 401).", err: "COPILOT_PROVIDER_API_KEY"},
	// 429 insufficient_quota: copilot retries for a minute, then reports a session.error
	// of errorType "rate_limit"; only its failed model calls carry the provider's code
	"quota-1-1.out": {structured: true, isError: true, err: "You exceeded your current quota",
		limit: &wantLimit{message: "429 You exceeded your current quota", permanent: true}},
	// 500 for 2 s, then 503 for 2 s: copilot retries on its own and succeeds
	"server-errors-1-1.out": {structured: true,
		said: []string{"<promise>SUCCESS</promise>"}, usage: &Usage{Model: "gpt-4.1"}},
	// killed by the loop's timeout while the stream hung: nothing to read but the start
	"hung-stream-1-1.out": {structured: true, saidExactly: ptr("")},
}

// recordedCopilotAnthropic: the same CLI with COPILOT_PROVIDER_TYPE=anthropic against a
// mock of the Anthropic Messages API.
var recordedCopilotAnthropic = map[string]want{
	"success-1-1.out": {structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>"),
		usage:       &Usage{Model: "claude-sonnet-4.5"}},
	"tags-not-in-words-1-1.out": {structured: true,
		saidExactly: ptr("I wrote a note. The work is not finished yet."), usage: &Usage{Model: "claude-sonnet-4.5"}},
	"bad-credentials-1-1.out": {structured: true, isError: true,
		fatal: "Authentication failed with provider at $MOCK (HTTP 401).", err: "COPILOT_PROVIDER_API_KEY"},
	// the Anthropic API's 400 for an account without credits: copilot does not retry it
	// and reports a session.error of errorType "query"
	"quota-1-1.out": {structured: true, isError: true, err: "400 Your credit balance is too low",
		limit: &wantLimit{message: "Your credit balance is too low to access the Anthropic API", permanent: true}},
	// 500 api_error, then 529 overloaded_error: copilot retries on its own and succeeds
	"server-errors-1-1.out": {structured: true,
		said: []string{"<promise>SUCCESS</promise>"}, usage: &Usage{Model: "claude-sonnet-4.5"}},
	"hung-stream-1-1.out": {structured: true, saidExactly: ptr("")},
}

func TestReadRecordedCopilotAnthropic(t *testing.T) {
	checkRecordingsIn(t, "copilot-anthropic", "copilot", recordedCopilotAnthropic)
}

func TestReadRecordedCopilot(t *testing.T) {
	checkRecordingsIn(t, "copilot", "copilot", recordedCopilot)
}

// Copilot 1.0.92 against the same 429 insufficient_quota (a local mock, 2026-11-23):
// its model.call_failure events had no errorCode yet, only the provider's body in
// errorMessage. A user on that version must not wait forever either.
func TestReadCopilotQuotaBeforeErrorCodes(t *testing.T) {
	output, err := os.ReadFile(filepath.Join("testdata", "copilot-1.0.92-insufficient-quota.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	check(t, read(t, "copilot", output, 1), want{structured: true, isError: true, err: "You exceeded your current quota",
		limit: &wantLimit{message: "429 You exceeded your current quota", permanent: true}})
}

// checkRecordingsIn reads every recording of testdata/recorded/DIR with preset and checks
// it against wants; a recording without a want, or a want without its recording, is a
// failure, so that refreshed recordings (scripts/agents-latest.sh --update) are looked at.
func checkRecordingsIn(t *testing.T, dir, preset string, wants map[string]want) {
	base := filepath.Join("testdata", "recorded", dir)
	exits := recordedExits(t, base)
	files, err := filepath.Glob(filepath.Join(base, "*.out"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s: %v", base, err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		seen[name] = true
		t.Run(strings.TrimSuffix(name, ".out"), func(t *testing.T) {
			w, ok := wants[name]
			if !ok {
				t.Fatalf("%s has no expectation in the table", f)
			}
			exit, ok := exits[name]
			if !ok {
				t.Fatalf("%s has no line in exits.txt", f)
			}
			output, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			check(t, read(t, preset, output, exit), w)
		})
	}
	for name := range wants {
		if !seen[name] {
			t.Errorf("the table expects %s, which is not in %s", name, base)
		}
	}
}

// A session.error of a kind the reader does not classify (the provider's 404 for an
// unknown model, copilot 1.0.102 in BYOK mode) is still the run's error in its words,
// not "exit code 1".
func TestReadCopilotUnclassifiedErrorIsTheRunsError(t *testing.T) {
	output := `{"type":"model.call_failure","data":{"model":"gpt-4.1","statusCode":404,"errorMessage":"\"nope\""},"ephemeral":true}
{"type":"session.error","data":{"errorType":"query","message":"Model 'gpt-4.1' not found on provider at http://127.0.0.1:18931/v1 (HTTP 404).\n  Check that the model is available on your provider.","statusCode":404}}
{"type":"result","exitCode":1,"usage":{"premiumRequests":0}}
`
	check(t, read(t, "copilot", []byte(output), 1), want{structured: true, isError: true,
		err: "Model 'gpt-4.1' not found on provider"})
}

// A 429 whose Retry-After is long (300 s) copilot 1.0.102 does not wait out itself (it
// does up to 60 s, seen with 4, 20 and 60): it stops at once with the provider's words,
// and the loop waits until the reset they state (a local mock, 2026-11-23).
func TestReadCopilotLongRateLimit(t *testing.T) {
	output, err := os.ReadFile(filepath.Join("testdata", "copilot-rate-limit-300s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	check(t, read(t, "copilot", output, 1), want{structured: true, isError: true, err: "Please try again in 300s.",
		limit: &wantLimit{message: "429 Rate limit reached for gpt-4.1", resetAt: now.Add(300 * time.Second)}})
}
