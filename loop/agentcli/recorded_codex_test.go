package agentcli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// recordedCodex is what the real codex (0.169.0, the version in realagents/versions.txt)
// printed in each scenario of the realagents tests, against a mock of the OpenAI
// Responses API: testdata/recorded/codex/SCENARIO-ITERATION-ATTEMPT.out, the exit
// status git-ralph saw in exits.txt (-1: killed by the iteration timeout). Token counts
// are the mock's: each answer reports defaultUsage (realagents/script_test.go), a
// quarter of the input as cached.
var recordedCodex = []struct {
	file string
	want want
	// clockReset: the limit's reset is the end of the minute codex's "try again at
	// H:MM AM" names; the time itself is real, so it is not pinned here.
	clockReset bool
}{
	// The shell tool made a commit, then the answer with the promise; usage is the sum
	// of both answers' (1000+1100 in, 40+41 out, 250+275 of the input cached).
	{file: "success-1-1.out", want: want{structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>"),
		usage:       &Usage{InputTokens: 2100, CacheReadTokens: 525, OutputTokens: 81, CachedInInput: true}}},
	// The promise tags in the reasoning summary and in the command and its output: not
	// the agent's words.
	{file: "tags-not-in-words-1-1.out", want: want{structured: true,
		saidExactly: ptr("I wrote a note. The work is not finished yet."),
		usage:       &Usage{InputTokens: 2100, CacheReadTokens: 525, OutputTokens: 81, CachedInInput: true}}},
	// HTTP 429 usage_limit_reached with resets_at four seconds away.
	{file: "limit-reset-1-1.out", clockReset: true, want: want{structured: true, isError: true,
		limit: &wantLimit{message: "You’ve hit your usage limit. Upgrade to Pro"}, err: "You’ve hit your usage limit"}},
	// The same iteration run again once the limit is over: the script's answers 1 and 2.
	{file: "limit-reset-1-2.out", want: want{structured: true,
		said:  []string{"<promise>SUCCESS</promise>"},
		usage: &Usage{InputTokens: 2300, CacheReadTokens: 575, OutputTokens: 83, CachedInInput: true}}},
	// HTTP 429 insufficient_quota: codex's own words, a limit waiting will not clear.
	{file: "quota-1-1.out", want: want{structured: true, isError: true,
		limit: &wantLimit{message: "Quota exceeded. Check your plan and billing details.", permanent: true}}},
	// HTTP 401 invalid_api_key: codex retries it once (request_max_retries = 1), then fails.
	{file: "bad-credentials-1-1.out", want: want{structured: true, isError: true,
		fatal: "unexpected status 401 Unauthorized: Incorrect API key provided", err: "401 Unauthorized"}},
	// HTTP 500 twice (codex's words: "high demand"), then a 503 after a 500, then served.
	{file: "server-errors-1-1.out", want: want{structured: true, isError: true,
		transient: "We’re currently experiencing high demand, which may cause temporary errors."}},
	{file: "server-errors-1-2.out", want: want{structured: true, isError: true,
		transient: "unexpected status 503 Service Unavailable: The engine is currently overloaded"}},
	{file: "server-errors-1-3.out", want: want{structured: true, // the script's answers 2 and 3
		said:  []string{"<promise>SUCCESS</promise>"},
		usage: &Usage{InputTokens: 2500, CacheReadTokens: 625, OutputTokens: 85, CachedInInput: true}}},
	// The stream never ended: killed by the timeout after thread.started and
	// turn.started, with nothing to say.
	{file: "hung-stream-1-1.out", want: want{structured: true, saidExactly: ptr("")}},
	// The same after a tool call that left a process in the background: what codex said
	// before it, nothing more.
	{file: "hung-after-child-1-1.out", want: want{structured: true, saidExactly: ptr("Starting a watcher.")}},
}

func TestRecordedCodex(t *testing.T) {
	dir := filepath.Join("testdata", "recorded", "codex")
	exits := recordedExits(t, dir)
	if len(exits) != len(recordedCodex) {
		t.Errorf("exits.txt names %d recordings, the table has %d: every recording needs a row", len(exits), len(recordedCodex))
	}
	for _, rec := range recordedCodex {
		t.Run(strings.TrimSuffix(rec.file, ".out"), func(t *testing.T) {
			exit, ok := exits[rec.file]
			if !ok {
				t.Fatalf("exits.txt has no line for %s", rec.file)
			}
			output, err := os.ReadFile(filepath.Join(dir, rec.file))
			if err != nil {
				t.Fatal(err)
			}
			got := read(t, "codex", output, exit)
			if rec.clockReset {
				checkCodexClockReset(t, got)
				if got.Limit != nil {
					got.Limit.ResetAt = time.Time{} // checked above, not pinned
				}
			}
			check(t, got, rec.want)
		})
	}
}

// codexClock is the reset clock time in codex's usage-limit message.
var codexClock = regexp.MustCompile(`try again at (\d{1,2}):(\d{2}) (AM|PM)\.`)

// checkCodexClockReset checks that the limit resets at the end of the minute codex
// names, the next such time after now: codex prints resets_at cut down to the minute.
func checkCodexClockReset(t *testing.T, got Report) {
	t.Helper()
	if got.Limit == nil {
		t.Fatal("no limit read")
	}
	m := codexClock.FindStringSubmatch(got.Limit.Message)
	if m == nil {
		t.Fatalf("the limit's message names no reset clock time: %q", got.Limit.Message)
	}
	hour, _ := strconv.Atoi(m[1])
	minute, _ := strconv.Atoi(m[2])
	hour %= 12
	if m[3] == "PM" {
		hour += 12
	}
	stated := time.Date(now.Year(), now.Month(), now.Day(), hour, minute, 0, 0, now.Location())
	if stated.Before(now) {
		stated = stated.AddDate(0, 0, 1)
	}
	if want := stated.Add(time.Minute); !got.Limit.ResetAt.Equal(want) {
		t.Errorf("Limit.ResetAt = %v, want %v: the end of the minute %s:%s %s names", got.Limit.ResetAt, want, m[1], m[2], m[3])
	}
}

// TestCodexClockResetIsTheEndOfTheMinute: codex printed resets_at 04:58:57 as "4:58 AM"
// (and a reset on another day as "Nov 26th, 2026 4:58 AM"): the limit is not over
// before 04:59.
func TestCodexClockResetIsTheEndOfTheMinute(t *testing.T) {
	at := time.Date(2026, 11, 23, 4, 58, 53, 0, time.UTC)
	for msg, want := range map[string]time.Time{
		"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 4:58 AM.":                time.Date(2026, 11, 23, 4, 59, 0, 0, time.UTC),
		"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Nov 26th, 2026 4:58 AM.": time.Date(2026, 11, 26, 4, 59, 0, 0, time.UTC),
		"You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 6:59 AM.":                                                        time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC),
	} {
		line := `{"type":"turn.failed","error":{"message":` + strconv.Quote(msg) + `}}` + "\n"
		p, _ := Lookup("codex")
		got := p.Read([]byte(line), 1, at)
		if got.Limit == nil || !got.Limit.ResetAt.Equal(want) {
			t.Errorf("%q:\nLimit = %+v, want a reset at %v", msg, got.Limit, want)
		}
	}
}

// codexAPIErrors are the last lines codex 0.169.0 printed (after thread.started and
// turn.started) for more of the API's error answers, seen against a mock with
// request_max_retries = stream_max_retries = 0.
var codexAPIErrors = []struct {
	name, message string
	want          want
}{
	// An API key's rate limit: HTTP 429 rate_limit_exceeded, "Please try again in 2s",
	// retry-after: 2. Codex drops the words and the reset: a limit the loop backs off from.
	{"429 rate_limit_exceeded", "exceeded retry limit, last status: 429 Too Many Requests",
		want{limit: &wantLimit{message: "exceeded retry limit, last status: 429 Too Many Requests"}}},
	// The same limit in the stream (response.failed rate_limit_exceeded) keeps its words.
	{"response.failed rate_limit_exceeded", "rate limit exceeded: Rate limit reached for gpt-5.5 in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1000. Please try again in 1.5s. Visit https://platform.openai.com/account/rate-limits to learn more.",
		want{limit: &wantLimit{message: "Rate limit reached for gpt-5.5", resetAt: now.Add(1500 * time.Millisecond)}}},
	{"response.failed insufficient_quota", "Quota exceeded. Check your plan and billing details.",
		want{limit: &wantLimit{message: "Quota exceeded.", permanent: true}}},
	// HTTP 429 usage_not_included: the ChatGPT plan has no Codex; waiting will not help.
	{"429 usage_not_included", "To use Codex with your ChatGPT plan, upgrade to Plus: https://chatgpt.com/explore/plus.",
		want{limit: &wantLimit{message: "To use Codex with your ChatGPT plan, upgrade to Plus", permanent: true}}},
	// HTTP 403 unsupported_country_region_territory: codex cannot run from here.
	{"403", "unexpected status 403 Forbidden: Country, region, or territory not supported, url: http://127.0.0.1:18768/v1/responses",
		want{fatal: "unexpected status 403 Forbidden: Country, region, or territory not supported"}},
	// HTTP 400 context_length_exceeded: a failed iteration, nothing more.
	{"400 context_length_exceeded", "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.",
		want{}},
}

func TestCodexAPIErrors(t *testing.T) {
	for _, c := range codexAPIErrors {
		t.Run(c.name, func(t *testing.T) {
			m := strconv.Quote(c.message)
			output := `{"type":"thread.started","thread_id":"01a206c8-f7d0-7280-a915-5b2f96f9642b"}
{"type":"turn.started"}
{"type":"error","message":` + m + `}
{"type":"turn.failed","error":{"message":` + m + `}}
`
			w := c.want
			w.structured, w.isError, w.err = true, true, c.message
			check(t, read(t, "codex", []byte(output), 1), w)
		})
	}
}
