package agentcli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		line string
		want kind
	}{
		// Limits, as CLIs print them.
		{"You've hit your limit · resets 1pm (Europe/Lisbon)", limitKind},
		{"You've hit your weekly limit · resets Mon 12:00am", limitKind},
		{"You've hit your org's monthly usage limit", limitKind},
		{"5-hour limit reached ∙ resets 12pm", limitKind},
		{"Claude usage limit reached. Your limit will reset at 7pm (Asia/Tokyo).", limitKind},
		{"You're out of extra usage · resets 11:30am (Asia/Colombo)", limitKind},
		{"exceeded retry limit, last status: 429 Too Many Requests, request id: abc", limitKind},
		{"stream disconnected before completion: Rate limit is exceeded. Try again in 17 seconds.", limitKind},
		{`Model call failed: {"message":"rate limit exceeded","code":"rate_limited"}`, limitKind},
		{"Attempt 1 failed: You have exhausted your capacity on this model. Your quota will reset after 5s.", limitKind},
		{"Too many requests, please wait before trying again. (Request ID: 465d20e9)", limitKind},
		{"The request was throttled by the service (request_id: 4f8a2fd1)", limitKind},
		{"You've reached your Opus limit. Run /usage-credits to keep going or switch models with /model", limitKind},
		// Fatal errors.
		{"Not logged in · Please run /login", fatalKind},
		{"Error: Invalid API key · Please run /login", fatalKind},
		{`API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, fatalKind},
		{"Error: Claude Code cannot be launched inside another Claude Code session.", fatalKind},
		{"aider: error: unrecognized arguments: --yes-alway", fatalKind},
		// Transient errors.
		{"API Error: 529 Overloaded. This is a server-side issue, usually temporary", transientKind},
		{"API Error: 503 upstream connect error", transientKind},
		{"litellm.InternalServerError: AnthropicException - Overloaded", transientKind},
		{"Error: read ECONNRESET", transientKind},
		{"API Error: Unable to connect to API (ConnectionRefused)", transientKind},
		{"The model is temporarily busy.", transientKind},
		// Prose about limits, errors and logins: none of these is a signal.
		{"I added a rate limiter that returns 429 when a client sends too fast.", noKind},
		{"The test checks that a limit is reached after five calls.", noKind},
		{"Users who are not logged in now see a login button.", noKind},
		{"Handle the overloaded case in the parser.", noKind},
		{"quota: the number of requests per user", noKind},
		{"Fixed line 529 of the parser; status 200 is fine.", noKind},
		{"A usage limit gives the user a clear message.", noKind},
		{"The request is too large; we split it.", noKind},
	}
	for _, tt := range tests {
		if got := classify(tt.line); got != tt.want {
			t.Errorf("classify(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestPermanent(t *testing.T) {
	for msg, want := range map[string]bool{
		"You've hit your org's monthly usage limit":                                     true,
		"You've hit your individual spend limit":                                        true,
		"Your usage allocation has been disabled by your admin":                         true,
		"You have reached your specified API usage limits. You will regain access on …": true,
		`{"error":{"message":"You have no quota","code":"quota_exceeded"}}`:             true,
		"You've hit your limit · resets 2pm (Asia/Tokyo)":                               false,
		"You've hit your usage limit. Upgrade to Pro (…) or try again in 2 days":        false,
		"You exceeded your current quota, please check your plan and billing details.":  false,
		"Kiro rate limit reached: Request quota exceeded. Please wait a moment":         false,
		// gemini-cli's words for a daily quota (a QuotaFailure PerDay: its
		// TerminalQuotaError), and a plan with no quota at all for the model ("limit: 0")
		"[API Error: You have exhausted your daily quota on this model.]\nPlease wait and try again later.":                                   true,
		"* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro": true,
		// a per-minute quota, which gemini-cli retries
		"* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 5, model: gemini-2.5-pro\nPlease retry in 4.2s.": false,
		"Quota exceeded for metric: x, limit: 0.5 per second": false,
	} {
		if got := permanent(msg); got != want {
			t.Errorf("permanent(%q) = %v, want %v", msg, got, want)
		}
	}
}

func TestTextIsSearchedInItsLastLinesOnly(t *testing.T) {
	limit := "You've hit your limit · resets 2pm (UTC)\n"
	filler := strings.Repeat("working on it\n", tailLines)
	if r := ReadText([]byte(limit+filler), 1, now); r.Limit != nil {
		t.Errorf("a limit %d lines from the end counted: %+v", tailLines+1, r.Limit)
	}
	filler = strings.Repeat("working on it\n\n\n", tailLines-1) // empty lines do not count
	if r := ReadText([]byte(limit+filler), 1, now); r.Limit == nil {
		t.Errorf("a limit %d non-empty lines from the end did not count", tailLines)
	}
}

func TestCustomCommandThatSucceededIsNotSecondGuessed(t *testing.T) {
	output := []byte("$ make test\nbash: golint: command not found\nError: rate limit exceeded (429 Too Many Requests) in TestClient\nall done\n")
	if r := ReadText(output, 0, now); r.Fatal != "" || r.Limit != nil || r.Transient != "" || r.Said != string(output) {
		t.Errorf("exit 0: %+v, want only Said", r)
	}
	if r := ReadText(output, 1, now); r.Limit == nil {
		t.Errorf("exit 1: %+v, want the limit", r)
	}
}

func TestTextTransientNeedsAFailedExit(t *testing.T) {
	output := []byte("--- FAIL: TestDial\n    dial_test.go:12: read tcp: connection reset by peer\nFixed it.\n")
	if r := ReadText(output, 0, now); r.Transient != "" {
		t.Errorf("exit 0: Transient = %q, want none", r.Transient)
	}
	if r := ReadText(output, 1, now); r.Transient == "" {
		t.Error("exit 1: no Transient")
	}
}

func TestTextEscapesAreIgnored(t *testing.T) {
	r := ReadText([]byte("\x1b[31mAPI Error: \x1b[1m429\x1b[0m rate_limit_error\x1b[0m\n"), 1, now)
	if r.Limit == nil || strings.Contains(r.Limit.Message, "\x1b") {
		t.Errorf("Limit = %+v, want one without escape sequences", r.Limit)
	}
}

func TestExitStatus(t *testing.T) {
	if r := ReadText(nil, 127, now); !strings.Contains(r.Fatal, "not found") {
		t.Errorf("exit 127: Fatal = %q", r.Fatal)
	}
	if r := ReadText([]byte("sh: 1: exec: claude: not found\n"), 127, now); r.Fatal != "sh: 1: exec: claude: not found" {
		t.Errorf("exit 127: Fatal = %q, want the shell's line", r.Fatal)
	}
	if r := ReadText([]byte("sh: 1: exec: ./agent: Permission denied\n"), 126, now); r.Fatal == "" {
		t.Error("exit 126: no Fatal")
	}
	if r := ReadText([]byte("You've hit your limit · resets 2pm (UTC)\n"), 127, now); r.Limit != nil || r.Fatal == "" {
		t.Errorf("exit 127 with a limit line: %+v, want Fatal only", r)
	}
	if r := ReadText([]byte("Usage: tool [options]\n"), 0, now); r.Fatal != "" {
		t.Errorf("a usage text with exit 0: Fatal = %q", r.Fatal)
	}
}

// rateLimitEvent is a claude stream-json rate_limit_event line.
func rateLimitEvent(status string, resetsAt time.Time, windows string) string {
	return `{"type":"rate_limit_event","rate_limit_info":{"status":"` + status + `","resetsAt":` +
		strconv.FormatInt(resetsAt.Unix(), 10) + `,"rateLimitType":"five_hour","unifiedWindows":{` + windows + `}}}`
}

func TestClaudeRateLimitEvent(t *testing.T) {
	claude, _ := Lookup("claude")
	five := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	week := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	windows := func(fiveUse, weekUse string) string {
		return `"five_hour":{"utilization":` + fiveUse + `,"resetsAt":` + strconv.FormatInt(five.Unix(), 10) + `},` +
			`"seven_day":{"utilization":` + weekUse + `,"resetsAt":` + strconv.FormatInt(week.Unix(), 10) + `}`
	}
	tooLong := `{"type":"result","subtype":"success","is_error":true,"result":"Prompt is too long","terminal_reason":"blocking_limit"}`
	tests := []struct {
		name    string
		lines   []string
		limited bool
		message string
		reset   time.Time
	}{
		{"rejected", []string{rateLimitEvent("rejected", five, windows("1", "0.4"))},
			true, "usage limit reached (five_hour)", five},
		{"both windows full: the later reset wins", []string{rateLimitEvent("rejected", five, windows("1", "1.0"))},
			true, "usage limit reached (five_hour)", week},
		{"allowed", []string{rateLimitEvent("allowed", five, windows("0.2", "0.1"))}, false, "", time.Time{}},
		{"allowed_warning", []string{rateLimitEvent("allowed_warning", week, windows("0.5", "0.91"))}, false, "", time.Time{}},
		{"blocking_limit after a rate-limit event", []string{rateLimitEvent("allowed_warning", week, windows("0.5", "0.91")),
			`{"type":"result","subtype":"success","is_error":true,"result":"Limit reached","terminal_reason":"blocking_limit"}`},
			true, "Limit reached", time.Time{}},
		{"blocking_limit alone is not a limit", []string{tooLong}, false, "", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := claude.Read([]byte(strings.Join(tt.lines, "\n")+"\n"), 1, now)
			if (r.Limit != nil) != tt.limited {
				t.Fatalf("Limit = %+v, want limited %v", r.Limit, tt.limited)
			}
			if r.Limit != nil && (r.Limit.Message != tt.message || !r.Limit.ResetAt.Equal(tt.reset)) {
				t.Errorf("Limit = %+v, want %q resetting at %v", *r.Limit, tt.message, tt.reset)
			}
		})
	}
}

func TestStructuredLinesAreNeverText(t *testing.T) {
	claude, _ := Lookup("claude")
	output := strings.Join([]string{
		// The first line of a truncated output: the end of a tool result.
		`s limit · resets 2pm\nNot logged in · Please run /login\n","is_error":false}]},"session_id":"x"}`,
		`{"type":"user","message":{"role":"user","content":"API Error: 429 rate_limit_error\nYou've hit your limit"}}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"Done."}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"Done."}`,
	}, "\n")
	r := claude.Read([]byte(output), 0, now)
	if r.Limit != nil || r.Fatal != "" || r.Transient != "" || r.Said != "Done." {
		t.Errorf("Read = %+v, want only Said %q", r, "Done.")
	}
}

func TestStderrNextToEvents(t *testing.T) {
	claude, _ := Lookup("claude")
	result := `{"type":"result","subtype":"success","is_error":false,"result":"Done."}`
	r := claude.Read([]byte("Error: read ECONNRESET\n"+result+"\n"), 0, now)
	if r.Transient != "" {
		t.Errorf("a completed run kept a transient error from stderr: %q", r.Transient)
	}
	r = claude.Read([]byte(`{"type":"system","subtype":"init","model":"m"}`+"\nError: read ECONNRESET\n"), 1, now)
	if r.Transient != "Error: read ECONNRESET" {
		t.Errorf("an unfinished run: Transient = %q", r.Transient)
	}
	r = claude.Read([]byte(result+"\nAPI Error: 429 rate_limit_error\n"), 1, now)
	if r.Limit == nil {
		t.Error("a limit on stderr next to the events did not count")
	}
}

func TestPlainTextFromAStructuredPreset(t *testing.T) {
	// A user who replaced claude's arguments with plain-text output still gets a promise.
	claude, _ := Lookup("claude")
	r := claude.Read([]byte("All done.\n<promise>SUCCESS</promise>\n"), 0, now)
	if r.Structured || !strings.Contains(r.Said, "<promise>SUCCESS</promise>") {
		t.Errorf("Read = %+v, want the whole text as Said", r)
	}
}

// gemini quotes the API's JSON error body in its result: read into words, its status
// decides like claude's "API Error: 500" (gemini-cli 0.61 passes the body through whole,
// as the recorded 400 and 401 fixtures show; these statuses are shaped like them).
func TestGeminiAPIErrorStatuses(t *testing.T) {
	gemini, _ := Lookup("gemini")
	result := func(code int, status, message string) []byte {
		body := fmt.Sprintf(`{"error":{"code":%d,"message":%q,"status":%q}}`, code, message, status)
		msg, _ := json.Marshal("[API Error: " + body + "]")
		return []byte(`{"type":"result","status":"error","error":{"type":"unknown","message":` + string(msg) + `}}` + "\n")
	}
	r := gemini.Read(result(500, "INTERNAL", "Internal error encountered."), 244, now)
	if r.Transient != "API Error: 500 INTERNAL: Internal error encountered." {
		t.Errorf("500: %+v", r)
	}
	r = gemini.Read(result(503, "UNAVAILABLE", "The model is overloaded. Please try again later."), 247, now)
	if r.Transient == "" {
		t.Errorf("503: %+v", r)
	}
	r = gemini.Read(result(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."), 173, now)
	if r.Limit == nil {
		t.Errorf("429: %+v", r)
	}
	r = gemini.Read(result(403, "PERMISSION_DENIED", "Permission denied on resource project."), 147, now)
	if r.Fatal == "" {
		t.Errorf("403: %+v", r)
	}
}

func TestClaudeSaysWhichCredentialItRunsOn(t *testing.T) {
	p, _ := Lookup("claude")
	out := []byte(`{"type":"system","subtype":"init","apiKeySource":"ANTHROPIC_API_KEY","model":"m"}
{"type":"result","is_error":false,"result":"done"}
`)
	if got := p.Read(out, 0, time.Now()).Account; got != "ANTHROPIC_API_KEY" {
		t.Errorf("Account = %q, want ANTHROPIC_API_KEY", got)
	}
	if got := p.Read([]byte(`{"type":"result","is_error":false,"result":"done"}`), 0, time.Now()).Account; got != "" {
		t.Errorf("Account without an init event = %q", got)
	}
}

// Final is what the stagnation check compares between iterations: the agent's last
// message in a structured format, not everything it said on the way.
func TestFinalIsTheLastMessage(t *testing.T) {
	claude, _ := Lookup("claude")
	output := strings.Join([]string{
		`{"type":"assistant","message":{"id":"a","content":[{"type":"text","text":"Let me look at the parser."}]}}`,
		`{"type":"assistant","message":{"id":"b","content":[{"type":"text","text":"Fixed the off-by-one in parse."}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"Fixed the off-by-one in parse."}`,
	}, "\n")
	if r := claude.Read([]byte(output), 0, now); r.Final != "Fixed the off-by-one in parse." {
		t.Errorf("claude: Final = %q, want the result text", r.Final)
	}
	text := "working...\nAll tests pass now.\n"
	if r := ReadText([]byte(text), 0, now); r.Final != text {
		t.Errorf("plain text, exit 0: Final = %q, want the output", r.Final)
	}
	if r := ReadText([]byte(text), 1, now); r.Final != text {
		t.Errorf("plain text, exit 1: Final = %q, want the output", r.Final)
	}
}
