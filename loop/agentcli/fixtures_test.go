package agentcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// now is when every fixture's run ended: 2026-01-01 05:00 in Tokyo.
var now = time.Date(2025, 12, 31, 20, 0, 0, 0, time.UTC)

// want is what a fixture's report must say. Empty strings and nil mean "not set".
type want struct {
	said, notSaid []string // substrings Said must, and must not, contain
	saidExactly   *string
	structured    bool
	limit         *wantLimit
	transient     string // a substring of Transient
	fatal         string // a substring of Fatal
	isError       bool
	usage         *Usage
	overage       bool
	overageUntil  time.Time // when the plan's window resets, stated with the overage
	err           string    // a substring of Error, checked when set
	hint          string    // a substring of Hint, checked when set
}

type wantLimit struct {
	message   string // a substring of the limit's message
	resetAt   time.Time
	permanent bool
}

func ptr[T any](v T) *T { return &v }

var fixtures = []struct {
	file   string
	preset string // "" reads with ReadText
	exit   int
	want   want
}{
	// Real output of the CLIs, recorded here (docs/guide/agents.md says how).
	{"claude-not-logged-in.jsonl", "claude", 1, want{structured: true, isError: true,
		saidExactly: ptr("Not logged in · Please run /login"), fatal: "Not logged in · Please run /login",
		usage: &Usage{Model: "claude-opus-4-8[1m]", HasCost: true}}},
	{"claude-root-refusal.txt", "claude", 1, want{fatal: "--dangerously-skip-permissions cannot be used with root/sudo privileges",
		hint: "IS_SANDBOX=1"}},
	{"claude-needs-verbose.txt", "claude", 1, want{fatal: "--output-format=stream-json requires --verbose"}},
	{"claude-unknown-option.txt", "claude", 1, want{fatal: "error: unknown option '--no-such-flag'"}},
	{"claude-text-not-logged-in.txt", "claude", 1, want{said: []string{"Not logged in"}, fatal: "Not logged in · Please run /login"}},
	{"claude-offline-retrying.jsonl", "claude", 124, want{structured: true,
		transient: "retrying: attempt 9 of 10", usage: &Usage{Model: "claude-opus-4-8[1m]"}}},
	{"claude-offline-connection-refused.jsonl", "claude", 1, want{structured: true, isError: true,
		saidExactly: ptr("API Error: Unable to connect to API (ConnectionRefused)"),
		transient:   "API Error: Unable to connect to API (ConnectionRefused)",
		usage:       &Usage{Model: "claude-opus-4-8[1m]", HasCost: true}}},
	{"codex-offline-reconnecting.jsonl", "codex", 124, want{structured: true,
		transient: "Reconnecting... waiting for network"}},
	{"codex-unknown-option.txt", "codex", 2, want{fatal: "error: unexpected argument '--no-such-flag' found"}},
	{"gemini-auth.txt", "gemini", 41, want{fatal: "Please set an Auth method"}},
	{"gemini-offline-retrying.jsonl", "gemini", 124, want{structured: true, saidExactly: ptr(""),
		transient: "fetch failed", usage: &Usage{Model: "auto"}}},
	{"gemini-unknown-option.txt", "gemini", 1, want{fatal: "Unknown arguments: such-flag, suchFlag"}},
	// gemini pointed at a local mock of its API (GOOGLE_GEMINI_BASE_URL) answering 400
	// API_KEY_INVALID and 401 UNAUTHENTICATED; it exits with the HTTP status mod 256.
	{"gemini-api-key-invalid.jsonl", "gemini", 144, want{structured: true, isError: true, saidExactly: ptr(""),
		fatal: "API Error: 400 INVALID_ARGUMENT (API_KEY_INVALID): API key not valid. Please pass a valid API key.", hint: "GEMINI_API_KEY",
		err: "API Error: 400 INVALID_ARGUMENT (API_KEY_INVALID): API key not valid.", usage: &Usage{Model: "gemini-3.1-pro-preview,gemini-3.5-flash-lite", CachedInInput: true}}},
	{"gemini-unauthenticated.jsonl", "gemini", 145, want{structured: true, isError: true, saidExactly: ptr(""),
		fatal: "API Error: 401 UNAUTHENTICATED: Request had invalid authentication credentials", hint: "GEMINI_API_KEY",
		usage: &Usage{Model: "gemini-3.1-pro-preview,gemini-3.5-flash-lite", CachedInInput: true}}},
	// claude logged in with a (fake) subscription token, pointed at a local mock of the
	// Messages API whose rate-limit headers say: five-hour window rejected, overage
	// allowed and in use (a 200 with the answer); then overage rejected (a 429).
	{"claude-overage-served.jsonl", "claude", 0, want{structured: true, overage: true,
		overageUntil: time.Unix(1795406283, 0),
		saidExactly:  ptr("Done: the plan is complete.\n\n<promise>SUCCESS</promise>"),
		usage:        &Usage{InputTokens: 12, OutputTokens: 9, CostUSD: 0.000342, HasCost: true, Model: "claude-sonnet-5"}}},
	{"claude-session-limit-no-overage.jsonl", "claude", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "You've hit your session limit · resets 3:58am (UTC)", resetAt: time.Date(2026, 11, 23, 3, 58, 11, 0, time.UTC)},
		err:   "You've hit your session limit"}},
	// The agent says SUCCESS and runs a tool; the next request gets HTTP 500 (mock API).
	{"claude-success-then-500.jsonl", "claude", 1, want{structured: true, isError: true,
		said: []string{"<promise>SUCCESS</promise>"}, transient: "API Error: 500 Internal server error", err: "API Error: 500"}},
	// codex pointed at a local mock of the Responses API answering 500, and streaming a
	// response.failed server_is_overloaded.
	{"codex-high-demand.jsonl", "codex", 1, want{structured: true, isError: true,
		transient: "We’re currently experiencing high demand, which may cause temporary errors."}},
	{"codex-at-capacity.jsonl", "codex", 1, want{structured: true, isError: true,
		transient: "Selected model is at capacity. Please try a different model."}},
	{"opencode-unknown-option.txt", "opencode", 1, want{fatal: "opencode run [message..]"}},
	{"opencode-offline-silent.txt", "opencode", 124, want{saidExactly: ptr("")}},
	{"copilot-not-logged-in.txt", "copilot", 1, want{fatal: "Error: No authentication information found."}},
	{"copilot-classic-pat.txt", "copilot", 1, want{fatal: "Classic Personal Access Tokens (ghp_) are not supported by Copilot"}},
	{"copilot-unknown-option.txt", "copilot", 1, want{fatal: "error: unexpected argument '--no-such-flag' found"}},
	{"agent-not-found.txt", "aider", 127, want{fatal: "sh: 1: exec: aider: not found"}},
	{"amp-login-flow.txt", "amp", 1, want{fatal: "Login failed: That code looks incomplete"}},
	{"amp-offline.txt", "amp", 1, want{transient: "Couldn't connect to the Amp server"}},
	{"amp-unknown-option.txt", "amp", 1, want{fatal: "unknown option '--no-such-flag'"}},

	// Shaped from the research and the CLIs' own event code (docs/guide/agents.md says which).
	{"claude-success-with-cost.jsonl", "claude", 0, want{structured: true,
		saidExactly: ptr("I'll read the plan and pick the most important item.\nAdded the --verbose flag, tests pass, committed as 3e1f2a9. Every item of the plan is done.\n\n<promise>SUCCESS</promise>"),
		usage: &Usage{InputTokens: 13, OutputTokens: 471, CacheReadTokens: 44560, CacheWriteTokens: 5102,
			CostUSD: 0.0842316, HasCost: true, Model: "claude-sonnet-4-5-20250929"}}},
	{"claude-tool-result-has-promise.jsonl", "claude", 0, want{structured: true,
		saidExactly: ptr("Let me look at the build instructions first.\nWired main to run(). Two items of the plan remain, so I am not done yet.")}},
	{"claude-rate-limit-rejected.jsonl", "claude", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "You've hit your limit · resets 2am (UTC)", resetAt: time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)}}},
	{"claude-usage-limit-epoch.jsonl", "claude", 0, want{structured: true,
		limit: &wantLimit{message: "Claude AI usage limit reached|1767225600", resetAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}},
	{"claude-session-limit-zone.jsonl", "claude", 1, want{structured: true, isError: true, notSaid: []string{"Europe/Paris"},
		limit: &wantLimit{message: "session limit", resetAt: time.Date(2026, 1, 1, 5, 0, 0, 0, time.UTC)}}},
	{"claude-api-429.jsonl", "claude", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "rate_limit_error"}}},
	{"claude-overloaded.jsonl", "claude", 1, want{structured: true, isError: true,
		transient: "API Error: Repeated 529 Overloaded errors"}},
	{"claude-spend-cap.jsonl", "claude", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "specified API usage limits", resetAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), permanent: true}}},
	{"claude-prompt-too-long.jsonl", "claude", 1, want{structured: true, isError: true, said: []string{"Prompt is too long"}}},
	{"claude-limit-warning-then-success.jsonl", "claude", 0, want{structured: true,
		said: []string{"the weekly rate limit test passes now"}}},
	{"claude-overage-success.jsonl", "claude", 0, want{structured: true, overage: true,
		overageUntil: time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC),
		said:         []string{"<promise>SUCCESS</promise>"},
		usage: &Usage{InputTokens: 6, OutputTokens: 88, CacheReadTokens: 12000, CacheWriteTokens: 1800,
			CostUSD: 0.02125, HasCost: true, Model: "claude-opus-4-8[1m]"}}},
	{"claude-rejected-then-served.jsonl", "claude", 0, want{structured: true,
		said: []string{"one item of the plan is left"}}},
	{"claude-success-then-api-500.jsonl", "claude", 1, want{structured: true, isError: true,
		said: []string{"<promise>SUCCESS</promise>"}, transient: "API Error: 500", err: "API Error: 500"}},
	{"codex-success.jsonl", "codex", 0, want{structured: true,
		saidExactly: ptr("Added the --verbose flag and committed it; the tests pass. One item of the plan is left, so no promise yet."),
		usage:       &Usage{InputTokens: 24763, CacheReadTokens: 24448, OutputTokens: 1122, CachedInInput: true}}},
	{"codex-success-promise.jsonl", "codex", 0, want{structured: true, said: []string{"<promise>SUCCESS</promise>"}}},
	{"codex-usage-limit.jsonl", "codex", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "You've hit your usage limit", resetAt: now.Add(65*time.Hour + 14*time.Minute)}}},
	{"codex-quota-exceeded.jsonl", "codex", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "Quota exceeded", permanent: true}}},
	{"codex-stream-disconnected.jsonl", "codex", 1, want{structured: true, isError: true,
		transient: "stream disconnected before completion"}},
	{"codex-reconnected-then-success.jsonl", "codex", 0, want{structured: true, said: []string{"go build passes"}}},
	{"gemini-success.jsonl", "gemini", 0, want{structured: true,
		saidExactly: ptr("I'll check the plan first.\nBoth items are checked off and `go test ./...` passed earlier, so the work is complete.\n<promise>SUCCESS</promise>"),
		usage:       &Usage{InputTokens: 14210, OutputTokens: 683, CacheReadTokens: 9120, CachedInInput: true, Model: "gemini-2.5-pro"}}},
	{"gemini-quota.jsonl", "gemini", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "RESOURCE_EXHAUSTED"}}},
	{"opencode-success.jsonl", "opencode", 0, want{structured: true,
		saidExactly: ptr("Reading the build prompt.\nThe last item is done and committed.\n<promise>SUCCESS</promise>"),
		usage: &Usage{InputTokens: 16530, OutputTokens: 137, CacheReadTokens: 8000, CacheWriteTokens: 120,
			CostUSD: 0.0208, HasCost: true}}},
	{"opencode-monthly-limit.jsonl", "opencode", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "Monthly usage limit reached", permanent: true}}},
	{"copilot-success.jsonl", "copilot", 0, want{structured: true,
		saidExactly: ptr("I'll check what is left in the plan.\nEvery item is checked off and the tests pass.\n<promise>SUCCESS</promise>"),
		usage:       &Usage{Model: "claude-sonnet-4.5"}}},
	{"copilot-rate-limit.jsonl", "copilot", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "you've hit a rate limit", resetAt: now.Add(2 * time.Hour)}}},
	{"copilot-no-quota.jsonl", "copilot", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "You have no quota", permanent: true}}},
	{"amp-success.jsonl", "amp", 0, want{structured: true,
		saidExactly: ptr("Let me check the plan.\nThe plan is complete.\n<promise>SUCCESS</promise>"),
		usage:       &Usage{InputTokens: 1220, OutputTokens: 92, CacheReadTokens: 4192, CacheWriteTokens: 3222}}},
	{"amp-no-credits.jsonl", "amp", 1, want{structured: true, isError: true,
		limit: &wantLimit{message: "at least $1 in available credits", permanent: true}}},
	{"cursor-success.jsonl", "cursor-agent", 0, want{structured: true,
		said: []string{"<promise>SUCCESS</promise>"}, notSaid: []string{"FAILURE"}}},
	{"cursor-monthly-limit.txt", "cursor-agent", 1, want{
		limit: &wantLimit{message: "You've hit your usage limit\nGet Cursor Pro", permanent: true}}},
	{"aider-success.txt", "aider", 0, want{said: []string{"<promise>SUCCESS</promise>", "Applied edit"}}},
	{"aider-rate-limit.txt", "aider", 0, want{limit: &wantLimit{message: "rate limited you"}}},
	{"aider-file-with-limit-text.txt", "aider", 0, want{said: []string{"hit your limit"}}},
	{"kiro-throttle.txt", "kiro-cli", 1, want{limit: &wantLimit{message: "60-minute credit limit exceeded"}}},
	{"kiro-rate-limit.txt", "kiro-cli", 1, want{
		limit: &wantLimit{message: "Kiro rate limit reached:\nRequest quota exceeded. Please wait a moment and try again."}}},
	{"kiro-rate-limit.txt", "", 1, want{limit: &wantLimit{message: "Kiro rate limit reached"}}},
}

func TestReadFixtures(t *testing.T) {
	for _, f := range fixtures {
		name := f.preset + "/" + strings.TrimSuffix(f.file, filepath.Ext(f.file))
		t.Run(name, func(t *testing.T) {
			output, err := os.ReadFile(filepath.Join("testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			got := read(t, f.preset, output, f.exit)
			check(t, got, f.want)
		})
	}
}

func read(t *testing.T, preset string, output []byte, exit int) Report {
	t.Helper()
	if preset == "" {
		return ReadText(output, exit, now)
	}
	p, ok := Lookup(preset)
	if !ok {
		t.Fatalf("no preset %q", preset)
	}
	return p.Read(output, exit, now)
}

func check(t *testing.T, got Report, w want) {
	t.Helper()
	if w.saidExactly != nil && got.Said != *w.saidExactly {
		t.Errorf("Said = %q, want %q", got.Said, *w.saidExactly)
	}
	for _, s := range w.said {
		if !strings.Contains(got.Said, s) {
			t.Errorf("Said = %q, want it to contain %q", got.Said, s)
		}
	}
	for _, s := range append(w.notSaid, "<promise>FAILURE</promise>") {
		if strings.Contains(got.Said, s) {
			t.Errorf("Said = %q, must not contain %q", got.Said, s)
		}
	}
	if got.Structured != w.structured {
		t.Errorf("Structured = %v, want %v", got.Structured, w.structured)
	}
	if got.IsError != w.isError {
		t.Errorf("IsError = %v, want %v", got.IsError, w.isError)
	}
	checkText(t, "Transient", got.Transient, w.transient)
	checkText(t, "Fatal", got.Fatal, w.fatal)
	checkLimit(t, got.Limit, w.limit)
	if got.Overage != w.overage {
		t.Errorf("Overage = %v, want %v", got.Overage, w.overage)
	}
	if !got.OverageUntil.Equal(w.overageUntil) {
		t.Errorf("OverageUntil = %v, want %v", got.OverageUntil, w.overageUntil)
	}
	if !strings.Contains(got.Error, w.err) || w.err != "" && got.Error == "" {
		t.Errorf("Error = %q, want it to contain %q", got.Error, w.err)
	}
	if !strings.Contains(got.Hint, w.hint) {
		t.Errorf("Hint = %q, want it to contain %q", got.Hint, w.hint)
	}
	if w.usage != nil && got.Usage != *w.usage {
		t.Errorf("Usage = %+v, want %+v", got.Usage, *w.usage)
	}
}

func checkText(t *testing.T, field, got, want string) {
	t.Helper()
	if (got == "") != (want == "") || !strings.Contains(got, want) {
		t.Errorf("%s = %q, want %q", field, got, want)
	}
}

func checkLimit(t *testing.T, got *Limit, want *wantLimit) {
	t.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil:
		t.Errorf("Limit = nil, want %+v", *want)
	case want == nil:
		t.Errorf("Limit = %+v, want none", *got)
	default:
		if !strings.Contains(got.Message, want.message) {
			t.Errorf("Limit.Message = %q, want it to contain %q", got.Message, want.message)
		}
		if !got.ResetAt.Equal(want.resetAt) {
			t.Errorf("Limit.ResetAt = %v, want %v", got.ResetAt, want.resetAt)
		}
		if got.Permanent != want.permanent {
			t.Errorf("Limit.Permanent = %v, want %v", got.Permanent, want.permanent)
		}
	}
}
