package agentcli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recordedClaude is what the real Claude Code (2.1.197, the version in
// realagents/versions.txt) printed in each scenario of the realagents tests, against a
// mock of the Anthropic Messages API: testdata/recorded/ACCOUNT/SCENARIO-ITERATION-ATTEMPT.out
// and the exit status git-ralph saw in ACCOUNT/exits.txt. ACCOUNT is claude (an API key)
// or claude-subscriber (an OAuth token: only then does claude print rate_limit_event
// lines). Claude Code retries nothing itself there (CLAUDE_CODE_MAX_RETRIES=0).
//
// Token counts are the mock's: each answer reports defaultUsage (realagents/script_test.go)
// as input, three times it as cache reads and a quarter as cache writes; claude's result
// sums the run's answers and counts the cache apart from the input. The cost is claude's
// own (total_cost_usd), from its price table for the model.
var recordedClaude = []struct {
	account, file string
	want          want
}{
	// The Bash tool made the commit, then the answer with the promise: answers 0 and 1
	// (1000+1100 in, 40+41 out).
	{"claude", "success-1-1.out", want{structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>"),
		usage: &Usage{InputTokens: 2100, OutputTokens: 81, CacheReadTokens: 6300, CacheWriteTokens: 525,
			CostUSD: 0.01895625, HasCost: true, Model: "claude-opus-4-8[1m]"}}},
	// The tags in a thinking block, in the Bash command and in its output: not the
	// agent's words.
	{"claude", "tags-not-in-words-1-1.out", want{structured: true,
		saidExactly: ptr("I wrote a note. The work is not finished yet."),
		notSaid:     []string{"<promise>SUCCESS</promise>"},
		usage: &Usage{InputTokens: 2100, OutputTokens: 81, CacheReadTokens: 6300, CacheWriteTokens: 525,
			CostUSD: 0.01895625, HasCost: true, Model: "claude-opus-4-8[1m]"}}},
	// HTTP 429 rate_limit_error with retry-after: 4. Claude Code says neither the reset
	// nor the header: a limit without a reset, which the loop backs off from (twice).
	{"claude", "limit-reset-1-1.out", apiKeyLimit},
	{"claude", "limit-reset-1-2.out", apiKeyLimit},
	{"claude", "limit-reset-1-3.out", want{structured: true, // answers 1 and 2 of the script
		said: []string{"<promise>SUCCESS</promise>"},
		usage: &Usage{InputTokens: 2300, OutputTokens: 83, CacheReadTokens: 6900, CacheWriteTokens: 575,
			CostUSD: 0.020618749999999998, HasCost: true, Model: "claude-opus-4-8[1m]"}}},
	// HTTP 400 "Your credit balance is too low…": claude's billing_error.
	{"claude", "quota-1-1.out", want{structured: true, isError: true, saidExactly: ptr("Credit balance is too low"),
		limit: &wantLimit{message: "Credit balance is too low", permanent: true}, err: "Credit balance is too low",
		usage: &Usage{HasCost: true, Model: "claude-opus-4-8[1m]"}}},
	// HTTP 401 authentication_error: claude's authentication_failed.
	{"claude", "bad-credentials-1-1.out", want{structured: true, isError: true,
		saidExactly: ptr("Invalid API key · Fix external API key"), fatal: "Invalid API key · Fix external API key",
		err: "Invalid API key", usage: &Usage{HasCost: true, Model: "claude-opus-4-8[1m]"}}},
	// HTTP 500 api_error, then 529 overloaded_error, then served.
	{"claude", "server-errors-1-1.out", want{structured: true, isError: true,
		said:      []string{"API Error: 500 Internal server error"},
		transient: "API Error: 500 Internal server error. This is a server-side issue", err: "API Error: 500",
		usage: &Usage{HasCost: true, Model: "claude-opus-4-8[1m]"}}},
	{"claude", "server-errors-1-2.out", want{structured: true, isError: true,
		said:      []string{"API Error: 529 Overloaded"},
		transient: "API Error: 529 Overloaded. This is a server-side issue", err: "API Error: 529",
		usage: &Usage{HasCost: true, Model: "claude-opus-4-8[1m]"}}},
	{"claude", "server-errors-1-3.out", want{structured: true, // answers 2 and 3
		said: []string{"<promise>SUCCESS</promise>"},
		usage: &Usage{InputTokens: 2500, OutputTokens: 85, CacheReadTokens: 7500, CacheWriteTokens: 625,
			CostUSD: 0.02228125, HasCost: true, Model: "claude-opus-4-8[1m]"}}},
	// The stream never ended: killed by the iteration timeout (SIGTERM, 143) after the
	// init event, with nothing said and no error of its own: the loop records a timeout.
	{"claude", "hung-stream-1-1.out", want{structured: true, saidExactly: ptr(""),
		usage: &Usage{Model: "claude-opus-4-8[1m]"}}},

	// A subscriber: the same answers, with the unified rate-limit headers.
	{"claude-subscriber", "success-1-1.out", want{structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>"),
		usage: &Usage{InputTokens: 2100, OutputTokens: 81, CacheReadTokens: 6300, CacheWriteTokens: 525,
			CostUSD: 0.011373749999999998, HasCost: true, Model: "claude-sonnet-5"}}},
	// Past the five-hour window, served on overage (extra usage allowed and in use):
	// the rejected window with isUsingOverage is no limit; its reset is the overage's end.
	{"claude-subscriber", "overage-1-1.out", want{structured: true, overage: true,
		overageUntil: time.Unix(1795417972, 0),
		saidExactly:  ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>"),
		usage: &Usage{InputTokens: 2100, OutputTokens: 81, CacheReadTokens: 6300, CacheWriteTokens: 525,
			CostUSD: 0.011373749999999998, HasCost: true, Model: "claude-sonnet-5"}}},
	// The five-hour window spent for four more seconds, no credits for extra usage: the
	// reset is the event's resetsAt (claude's words round it to the minute).
	{"claude-subscriber", "limit-reset-1-1.out", want{structured: true, isError: true,
		saidExactly: ptr("You've hit your session limit · resets 5:05am (UTC)"),
		limit:       &wantLimit{message: "You've hit your session limit · resets 5:05am (UTC)", resetAt: time.Unix(1795410354, 0)},
		err:         "You've hit your session limit", usage: &Usage{HasCost: true, Model: "claude-sonnet-5"}}},
	{"claude-subscriber", "limit-reset-1-2.out", want{structured: true,
		said: []string{"<promise>SUCCESS</promise>"},
		usage: &Usage{InputTokens: 2300, OutputTokens: 83, CacheReadTokens: 6900, CacheWriteTokens: 575,
			CostUSD: 0.01237125, HasCost: true, Model: "claude-sonnet-5"}}},
	// The weekly window spent for four more days: a limit with its reset, which the loop
	// does not wait for (further than max_limit_wait) and says so.
	{"claude-subscriber", "quota-1-1.out", want{structured: true, isError: true,
		limit: &wantLimit{message: "You've hit your weekly limit · resets Nov 27, 5:12am (UTC)", resetAt: time.Unix(1795756368, 0)},
		err:   "You've hit your weekly limit", usage: &Usage{HasCost: true, Model: "claude-sonnet-5"}}},
	// The five-hour window spent, extra usage refused by the org's monthly spend cap:
	// claude speaks only of the cap, but the window reopens at the event's resetsAt.
	{"claude-subscriber", "spend-cap-1-1.out", want{structured: true, isError: true,
		limit: &wantLimit{message: "You've hit your org's monthly spend limit · ask your admin to raise it at claude.ai/settings/usage",
			resetAt: time.Unix(1795410365, 0)},
		err: "monthly spend limit", usage: &Usage{HasCost: true, Model: "claude-sonnet-5"}}},
	{"claude-subscriber", "spend-cap-1-2.out", want{structured: true,
		said: []string{"<promise>SUCCESS</promise>"},
		usage: &Usage{InputTokens: 2300, OutputTokens: 83, CacheReadTokens: 6900, CacheWriteTokens: 575,
			CostUSD: 0.01237125, HasCost: true, Model: "claude-sonnet-5"}}},
}

var apiKeyLimit = want{structured: true, isError: true,
	said:  []string{"API Error: Request rejected (429)"},
	limit: &wantLimit{message: "API Error: Request rejected (429) · This request would exceed your organization's rate limit"},
	err:   "Request rejected (429)", usage: &Usage{HasCost: true, Model: "claude-opus-4-8[1m]"}}

func TestRecordedClaude(t *testing.T) {
	rows := map[string]int{}
	for _, rec := range recordedClaude {
		rows[rec.account]++
	}
	exits := map[string]map[string]int{}
	for account, n := range rows {
		exits[account] = recordedExits(t, filepath.Join("testdata", "recorded", account))
		if len(exits[account]) != n {
			t.Errorf("%s/exits.txt names %d recordings, the table has %d: every recording needs a row", account, len(exits[account]), n)
		}
	}
	for _, rec := range recordedClaude {
		t.Run(rec.account+"/"+strings.TrimSuffix(rec.file, ".out"), func(t *testing.T) {
			exit, ok := exits[rec.account][rec.file]
			if !ok {
				t.Fatalf("%s/exits.txt has no line for %s", rec.account, rec.file)
			}
			output, err := os.ReadFile(filepath.Join("testdata", "recorded", rec.account, rec.file))
			if err != nil {
				t.Fatal(err)
			}
			check(t, read(t, "claude", output, exit), rec.want)
		})
	}
}

// TestClaudeSubscriberSpendCapOnly: only the org's spend cap makes a subscriber's
// "permanent" words wait for the window's reset; the recorded spend-cap run with other
// refusals of extra usage (or a claim that is not a plan window) stays permanent.
func TestClaudeSubscriberSpendCapOnly(t *testing.T) {
	event := func(claim, reason string) string {
		return `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795410365,"rateLimitType":"` + claim +
			`","overageStatus":"rejected","overageDisabledReason":"` + reason + `","isUsingOverage":false}}` + "\n"
	}
	result := func(msg string) string {
		return `{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"` + msg + `"}` + "\n"
	}
	const capMsg = "You've hit your org's monthly spend limit · ask your admin to raise it at claude.ai/settings/usage"
	const adminMsg = "Your usage allocation has been disabled by your admin · run /usage-credits to ask your admin for a higher limit"
	reset := time.Unix(1795410365, 0)
	for _, c := range []struct {
		name, output string
		permanent    bool
	}{
		{"cap, five-hour window", event("five_hour", "org_level_disabled_until") + result(capMsg), false},
		{"cap as the API names it, weekly window", event("seven_day", "org_spend_cap_reached") + result(capMsg), false},
		{"cap, overage claim", event("overage", "org_level_disabled_until") + result(capMsg), true},
		{"disabled by the admin", event("five_hour", "member_level_disabled") + result(adminMsg), true},
		{"cap words without an event", result(capMsg), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := read(t, "claude", []byte(c.output), 1)
			if got.Limit == nil || got.Limit.Permanent != c.permanent {
				t.Fatalf("Limit = %+v, want permanent %v", got.Limit, c.permanent)
			}
			if !c.permanent && !got.Limit.ResetAt.Equal(reset) {
				t.Errorf("Limit.ResetAt = %v, want the event's %v", got.Limit.ResetAt, reset)
			}
		})
	}
}

// TestClaudeSpendCapWindowAlreadyReset: a plan window whose stated reset has passed
// cannot be what refuses the run: the spend cap is, and waiting for a reset gone by
// would only run claude again and again until max_limit_wait. It stays permanent.
func TestClaudeSpendCapWindowAlreadyReset(t *testing.T) {
	past := now.Add(-time.Hour).Unix()
	out := fmt.Sprintf(`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":%d,"rateLimitType":"five_hour",`+
		`"overageStatus":"rejected","overageDisabledReason":"org_level_disabled_until","isUsingOverage":false}}`+"\n"+
		`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your org's monthly spend limit"}`+"\n", past)
	got := read(t, "claude", []byte(out), 1)
	if got.Limit == nil || !got.Limit.Permanent {
		t.Fatalf("Limit = %+v, want permanent: the window's reset has passed", got.Limit)
	}
}
