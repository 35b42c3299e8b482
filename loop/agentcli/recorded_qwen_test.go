package agentcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What the real qwen-code printed in each scenario of the realagents tests (against a
// mock of the Chat Completions API, RALPH_REALAGENTS_RECORD), read with the qwen preset,
// whose reader is Claude Code's: qwen-code's stream-json has its shape (system/init,
// assistant, user, result). The exit codes are the recorded ones (exits.txt).
var recordedQwen = []struct {
	file  string
	want  want
	usage *Usage
}{
	// The result's usage is the session's: unlike claude's, its input_tokens include
	// the cached ones (the mock's prompt_tokens, 1000 + 1100), which it also reports as
	// cache_read_input_tokens. No cost: qwen-code prints none.
	{"success-1-1.out", want{structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>")},
		&Usage{InputTokens: 1000 + 1100, OutputTokens: 40 + 41, CacheReadTokens: 100 + 110, Model: "mock-coder"}},
	// The tags are in the thinking, the tool's input and its output only.
	{"tags-not-in-words-1-1.out", want{structured: true,
		saidExactly: ptr("I wrote a note. The work is not finished yet."), notSaid: []string{"<promise>"}},
		&Usage{InputTokens: 1000 + 1100, OutputTokens: 40 + 41, CacheReadTokens: 100 + 110, Model: "mock-coder"}},
	// A 401: an assistant message and an error result with the provider's words, exit 1.
	{"bad-credentials-1-1.out", want{structured: true, isError: true,
		fatal: "[API Error: 401 Incorrect API key provided: sk-mock-**********6789.", err: "Incorrect API key provided"},
		&Usage{Model: "mock-coder"}},
	// 500, then 503: qwen-code retried them itself, silently, and went on.
	{"server-errors-1-1.out", want{structured: true, said: []string{"<promise>SUCCESS</promise>"}},
		&Usage{InputTokens: 1200 + 1300, OutputTokens: 42 + 43, CacheReadTokens: 120 + 130, Model: "mock-coder"}},
	// The stream never ended and the timeout killed qwen-code: no words, no verdict.
	{"hung-stream-1-1.out", want{structured: true, saidExactly: ptr("")}, &Usage{Model: "mock-coder"}},
	// A rate limit ("try again in 1s") outlasting qwen-code's retries (68 s of them, with
	// the tests' two stream retries: system/retry events, the words on stderr), then the
	// same iteration run again.
	{"limit-outlasts-retries-1-1.out", want{structured: true, isError: true,
		limit: &wantLimit{message: "429 Rate limit reached for mock-coder", resetAt: now.Add(time.Second)},
		err:   "Please try again in 1s."}, &Usage{Model: "mock-coder"}},
	{"limit-outlasts-retries-1-2.out", want{structured: true, said: []string{"<promise>SUCCESS</promise>"}},
		&Usage{InputTokens: 1100 + 1200, OutputTokens: 41 + 42, CacheReadTokens: 110 + 120, Model: "mock-coder"}},
}

func TestReadRecordedQwen(t *testing.T) {
	files := make([]string, len(recordedQwen))
	for i, f := range recordedQwen {
		files[i] = f.file
	}
	readEachRecording(t, "qwen", files, func(t *testing.T, row int, got Report) {
		f := recordedQwen[row]
		check(t, got, f.want)
		if got.Usage != *f.usage {
			t.Errorf("Usage = %+v, want %+v", got.Usage, *f.usage)
		}
	})
}

// TestReadQwenRefusals: what qwen-code 0.24.4 printed, on no network, with the preset's
// line and a fresh HOME: no auth type configured (its error result holds the message in
// an object, which the claude reader left unread: the run's error was the banners on
// stderr), and an option it does not know.
func TestReadQwenRefusals(t *testing.T) {
	for _, f := range []struct {
		file string
		want want
	}{
		{"qwen-no-auth.jsonl", want{structured: true, isError: true,
			fatal: "No auth type is selected. Please configure an auth type", err: "No auth type is selected"}},
		{"qwen-unknown-option.txt", want{fatal: "Unknown arguments: such-flag, suchFlag"}},
	} {
		t.Run(f.file, func(t *testing.T) {
			output, err := os.ReadFile(filepath.Join("testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			check(t, read(t, "qwen", output, 1), f.want)
		})
	}
}

// TestReadQwenKilledWhileRetrying: killed by the iteration timeout while qwen-code waits
// to retry a 429 (its system/retry event, the provider's words on stderr): the words are
// read as the limit they state.
func TestReadQwenKilledWhileRetrying(t *testing.T) {
	output := `{"type":"system","subtype":"init","model":"mock-coder"}
{"type":"system","subtype":"retry","data":{"reason":"retry","attempt":1,"maxRetries":10,"delayMs":60000,"discardedToolCalls":0,"preserveText":false}}
Retrying in 60s (attempt 1/10): [API Error: 429 Rate limit reached for mock-coder in organization org-mock on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 20s.]
`
	got := read(t, "qwen", []byte(output), -1)
	check(t, got, want{structured: true, limit: &wantLimit{message: "Rate limit reached for mock-coder", resetAt: now.Add(20 * time.Second)}})

	// without the words, the retry notice is the transient error the run died in
	got = read(t, "qwen", []byte(strings.SplitAfterN(output, "\n", 3)[0]+strings.SplitAfterN(output, "\n", 3)[1]), -1)
	check(t, got, want{structured: true, transient: "qwen-code is retrying the request: attempt 1 of 10 in 60000 ms"})
}

// TestReadQwenInsufficientQuota: OpenAI's 429 insufficient_quota, after qwen-code's
// retries (265 s of them, with two stream retries set): its result carries the words
// only, not the code, and the words also fit a quota that resets. Read as a limit whose
// reset is not stated, not a permanent one (docs/dev/real-agents.md: a known gap).
func TestReadQwenInsufficientQuota(t *testing.T) {
	output, err := os.ReadFile(filepath.Join("testdata", "qwen-insufficient-quota.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, "qwen", output, 1)
	check(t, got, want{structured: true, isError: true,
		limit: &wantLimit{message: "429 You exceeded your current quota"}, err: "You exceeded your current quota"})
	if got.Limit != nil && got.Limit.Permanent {
		t.Errorf("the words alone were taken for a permanent quota: %+v", got.Limit)
	}
}
