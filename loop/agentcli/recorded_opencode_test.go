package agentcli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recordedUsage is what a recording's step_finish events add up to: opencode's own
// input (without cache reads), output with reasoning, and the sum of its step costs.
type recordedUsage struct {
	in, out, cacheRead int64
	cost               float64
}

// What the real opencode printed in each scenario of the realagents tests (against a mock
// of the Chat Completions API, RALPH_REALAGENTS_RECORD), read with the opencode preset.
// The exit codes are the recorded ones (exits.txt).
var recordedOpencode = []struct {
	file  string
	want  want
	usage *recordedUsage
}{
	// One step runs the shell tool (reasoning tokens reported apart), one says SUCCESS.
	{"success-1-1.out", want{structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>")},
		&recordedUsage{in: 900 + 990, out: 30 + 10 + 41, cacheRead: 100 + 110, cost: 0.00333 + 0.003618}},
	// The tags are in the tool's input and output only: they are not the agent's words.
	{"tags-not-in-words-1-1.out", want{structured: true,
		saidExactly: ptr("I wrote a note. The work is not finished yet."), notSaid: []string{"<promise>"}},
		&recordedUsage{in: 900 + 990, out: 30 + 10 + 41, cacheRead: 100 + 110, cost: 0.00333 + 0.003618}},
	// OpenAI's 429 insufficient_quota, after opencode's own five retries.
	{"quota-1-1.out", want{structured: true, isError: true,
		limit: &wantLimit{message: "You exceeded your current quota, please check your plan and billing details.", permanent: true},
		err:   "You exceeded your current quota"}, nil},
	{"bad-credentials-1-1.out", want{structured: true, isError: true,
		fatal: "Incorrect API key provided: sk-mock-**********6789.", err: "Incorrect API key provided"}, nil},
	// 500, then 503: opencode retried them itself and went on; nothing failed.
	{"server-errors-1-1.out", want{structured: true, said: []string{"<promise>SUCCESS</promise>"}},
		&recordedUsage{in: 1080 + 1170, out: 32 + 10 + 43, cacheRead: 120 + 130, cost: 0.003906 + 0.004194}},
	// The stream never ended and the timeout killed opencode: it printed the step's start
	// (on a loaded machine, not even that), no words, no verdict.
	{"hung-stream-1-1.out", want{structured: true, saidExactly: ptr("")}, nil},
	// A rate limit ("try again in 1s", retry-after: 1) outlasting opencode's retries,
	// then the same iteration run again.
	{"limit-outlasts-retries-1-1.out", want{structured: true, isError: true,
		limit: &wantLimit{message: "Rate limit reached for mock-coder in organization org-mock on requests per min (RPM)",
			resetAt: now.Add(time.Second)},
		err: "Please try again in 1s."}, nil},
	{"limit-outlasts-retries-1-2.out", want{structured: true, said: []string{"<promise>SUCCESS</promise>"}},
		&recordedUsage{in: 990 + 1080, out: 31 + 10 + 42, cacheRead: 110 + 120, cost: 0.003618 + 0.003906}},
}

func TestRecordedOpencode(t *testing.T) {
	files := make([]string, len(recordedOpencode))
	for i, f := range recordedOpencode {
		files[i] = f.file
	}
	readEachRecording(t, "opencode", files, func(t *testing.T, row int, got Report) {
		f := recordedOpencode[row]
		check(t, got, f.want)
		checkRecordedUsage(t, got.Usage, f.usage)
	})
}

func checkRecordedUsage(t *testing.T, got Usage, want *recordedUsage) {
	t.Helper()
	if want == nil {
		if got.InputTokens != 0 || got.OutputTokens != 0 || got.HasCost {
			t.Errorf("Usage = %+v, want none", got)
		}
		return
	}
	if got.InputTokens != want.in || got.OutputTokens != want.out || got.CacheReadTokens != want.cacheRead || got.CacheWriteTokens != 0 {
		t.Errorf("tokens in %d, out %d, cache read %d, write %d; want in %d, out %d, cache read %d",
			got.InputTokens, got.OutputTokens, got.CacheReadTokens, got.CacheWriteTokens, want.in, want.out, want.cacheRead)
	}
	if !got.HasCost || math.Abs(got.CostUSD-want.cost) > 1e-12 {
		t.Errorf("cost $%v (reported: %v), want $%v", got.CostUSD, got.HasCost, want.cost)
	}
}

// TestOpencodeRetryAfter: a limit whose words state no reset takes it from the answer's
// retry-after header, which opencode prints with the error (the recorded rate limit,
// without its "Please try again in 1s.").
func TestOpencodeRetryAfter(t *testing.T) {
	rec, err := os.ReadFile(filepath.Join("testdata", "recorded", "opencode", "limit-outlasts-retries-1-1.out"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ header, value string }{
		{`"retry-after":"90"`, "90 seconds"},
		{`"retry-after":"Thu, 01 Jan 2026 01:00:00 GMT"`, "an HTTP date"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			out := strings.ReplaceAll(string(rec), " Please try again in 1s.", "")
			out = strings.Replace(out, `"retry-after":"1"`, tc.header, 1)
			got := read(t, "opencode", []byte(out), 1)
			want := now.Add(90 * time.Second)
			if tc.value == "an HTTP date" {
				want = time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
			}
			check(t, got, wantLimitOnly(want))
		})
	}
}

func wantLimitOnly(resetAt time.Time) want {
	return want{structured: true, isError: true, err: "Rate limit reached",
		limit: &wantLimit{message: "Rate limit reached for mock-coder", resetAt: resetAt}}
}

// TestRetryAfterHostile: a retry-after header is the provider's (or whatever answers in
// its place): an HTTP date is read in the zone of the run's end like every other reset,
// and values that state no sensible time state none.
func TestRetryAfterHostile(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	end := time.Date(2026, 1, 1, 9, 0, 0, 0, tokyo)
	for _, tc := range []struct {
		value string
		want  time.Time
	}{
		{"Thu, 01 Jan 2026 01:00:00 GMT", time.Date(2026, 1, 1, 10, 0, 0, 0, tokyo)},
		{"30", end.Add(30 * time.Second)},
		{"-5", time.Time{}},
		{"NaN", time.Time{}},
		{"Inf", time.Time{}},
		{"1e300", time.Time{}},
		{"soon", time.Time{}},
	} {
		got := retryAfter(map[string]string{"retry-after": tc.value}, end)
		if !got.Equal(tc.want) || (!got.IsZero() && got.Location() != tokyo) {
			t.Errorf("retry-after %q: got %v, want %v in the run's zone", tc.value, got, tc.want)
		}
	}
}
