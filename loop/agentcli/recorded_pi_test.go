package agentcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What the real pi printed in each scenario of the realagents tests (against a mock of
// the Chat Completions API, RALPH_REALAGENTS_RECORD), read with the pi preset. pi exits 0
// after a failed model call as after a finished run (143 when the timeout's SIGTERM
// stopped it): only its events tell the two apart. The exit codes are the recorded ones
// (exits.txt).
var recordedPi = []struct {
	file  string
	want  want
	usage *recordedUsage
}{
	// Two assistant messages: the first runs the shell tool, the second says SUCCESS.
	// pi's input excludes the cached tenth of the mock's prompt tokens, which it reports
	// as cacheRead; its cost is its own, from the prices of models.json.
	{"success-1-1.out", want{structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>")},
		&recordedUsage{in: 900 + 990, out: 40 + 41, cacheRead: 100 + 110, cost: 0.00333 + 0.003618}},
	// The tags are in the thinking, the tool's input and its output only: not the
	// agent's words.
	{"tags-not-in-words-1-1.out", want{structured: true,
		saidExactly: ptr("I wrote a note. The work is not finished yet."), notSaid: []string{"<promise>"}},
		&recordedUsage{in: 900 + 990, out: 40 + 41, cacheRead: 100 + 110, cost: 0.00333 + 0.003618}},
	// OpenAI's 429 insufficient_quota after pi's three retries of the prompt (its default):
	// the message alone does not say the quota is spent for good, and pi prints no code.
	{"quota-1-1.out", want{structured: true, isError: true,
		limit: &wantLimit{message: "429 You exceeded your current quota, please check your plan and billing details."},
		err:   "You exceeded your current quota"}, zeroUsage},
	{"bad-credentials-1-1.out", want{structured: true, isError: true,
		fatal: "401 Incorrect API key provided: sk-mock-**********6789.", err: "Incorrect API key provided"}, zeroUsage},
	// 500, then (after pi's one retry in these tests) 503: the run failed with a
	// transient error; git-ralph's own retry then succeeded.
	{"server-errors-1-1.out", want{structured: true, isError: true,
		transient: "503 The engine is currently overloaded", err: "503 The engine is currently overloaded"}, zeroUsage},
	{"server-errors-1-2.out", want{structured: true, said: []string{"<promise>SUCCESS</promise>"}},
		&recordedUsage{in: 1080 + 1170, out: 42 + 43, cacheRead: 120 + 130, cost: 0.003906 + 0.004194}},
	// The stream never ended and the timeout's SIGTERM stopped pi: the prompt echoed,
	// no words, no verdict.
	{"hung-stream-1-1.out", want{structured: true, saidExactly: ptr("")}, nil},
	// A rate limit ("try again in 1s") outlasting pi's retries, then the same iteration
	// run again.
	{"limit-outlasts-retries-1-1.out", want{structured: true, isError: true,
		limit: &wantLimit{message: "429 Rate limit reached for mock-coder", resetAt: now.Add(time.Second)},
		err:   "Please try again in 1s."}, zeroUsage},
	{"limit-outlasts-retries-1-2.out", want{structured: true, said: []string{"<promise>SUCCESS</promise>"}},
		&recordedUsage{in: 990 + 1080, out: 41 + 42, cacheRead: 110 + 120, cost: 0.003618 + 0.003906}},
}

// zeroUsage: a failed model call is an assistant message with zero tokens and a zero
// cost, which pi reports as such.
var zeroUsage = &recordedUsage{}

func TestReadRecordedPi(t *testing.T) {
	files := make([]string, len(recordedPi))
	for i, f := range recordedPi {
		files[i] = f.file
	}
	readEachRecording(t, "pi", files, func(t *testing.T, row int, got Report) {
		f := recordedPi[row]
		check(t, got, f.want)
		checkRecordedUsage(t, got.Usage, f.usage)
		if got.Usage.Model != "mock-coder" && f.usage != nil {
			t.Errorf("model %q, want the one pi named", got.Usage.Model)
		}
	})
}

// piRecording returns the lines of a pi recording, from its first line up to and
// including the first line containing upTo ("" for all).
func piRecording(t *testing.T, file, upTo string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "recorded", "pi", file))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for line := range strings.Lines(string(data)) {
		b.WriteString(line)
		if upTo != "" && strings.Contains(line, upTo) {
			break
		}
	}
	return b.String()
}

// TestReadPiRetries: pi retries a failed prompt itself (auto_retry_start); the failure
// before a retry is not the run's verdict. Cut from the recorded server-errors run, whose
// first call got a 500.
func TestReadPiRetries(t *testing.T) {
	failed := piRecording(t, "server-errors-1-1.out", `"type":"agent_end"`)
	retry := piRecording(t, "server-errors-1-1.out", `"type":"auto_retry_start"`)
	served := piRecording(t, "success-1-1.out", "")
	served = served[strings.Index(served, "\n")+1:] // a retry has no session line of its own
	tests := []struct {
		name   string
		output string
		exit   int
		want   want
	}{
		// The SDK's words for a 500 are not ones the text rules know; the status that
		// leads them is.
		{"a 500 and no retry", failed, 0, want{structured: true, isError: true,
			transient: "500 The server had an error while processing your request."}},
		// Stopped (SIGTERM, 143) while waiting to retry: the notice is what it failed with.
		{"stopped while waiting to retry", retry, 143, want{structured: true,
			transient: "500 The server had an error while processing your request. Sorry about that! (retrying: attempt 1 of 1"}},
		{"a 500, then the retry served", retry + served, 0, want{structured: true,
			said: []string{"<promise>SUCCESS</promise>"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := read(t, "pi", []byte(tt.output), tt.exit)
			check(t, got, tt.want)
			if tt.want.transient == "" && (got.IsError || got.Transient != "" || got.Error != "") {
				t.Errorf("a served retry is not a failure: IsError %v, Transient %q, Error %q", got.IsError, got.Transient, got.Error)
			}
		})
	}
}

// TestReadPiRefusals: what pi 0.73.1 printed, on no network, with the preset's line and a
// fresh HOME: no provider with a key (its session line, then the words; exit 1), and an
// option it does not know.
func TestReadPiRefusals(t *testing.T) {
	for _, f := range []struct {
		file string
		want want
	}{
		{"pi-no-api-key.txt", want{structured: true, fatal: "No API key found for the selected model."}},
		{"pi-unknown-option.txt", want{fatal: "Error: Unknown option: --no-such-flag"}},
	} {
		t.Run(f.file, func(t *testing.T) {
			output, err := os.ReadFile(filepath.Join("testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			check(t, read(t, "pi", output, 1), f.want)
		})
	}
}
