package realagents

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Claude Code against a mock of the Anthropic Messages API, twice: with an API key, and
// as a subscriber (a Claude Pro/Max OAuth token). Only a subscriber gets rate_limit_event
// lines: Claude Code makes them from the anthropic-ratelimit-unified-* response headers,
// which the API sends to subscription tokens only.
func init() {
	register(agentCLI{
		preset: "claude",
		api:    func(m *mock) http.Handler { return claudeAnthropic(m, apiKeyAccount) },
		configure: func(t *testing.T, home, baseURL string) []string {
			return configureClaude(t, home, baseURL, "ANTHROPIC_API_KEY=sk-ant-api03-realagents-fake-key")
		},
		totals: claudeTotals,
		// plan mode (--permission-mode plan) blocks the shell's redirection
		judgeRefuses: "was blocked. For security, Claude Code may only write to files",
		judgeCmd:     "claude -p --dangerously-skip-permissions",
		says: map[errorKind]string{
			quotaError: "Credit balance is too low",
			authError:  "Invalid API key · Fix external API key",
		},
	})
	register(agentCLI{
		name: "claude-subscriber", preset: "claude", account: "subscriber",
		api: func(m *mock) http.Handler { return claudeAnthropic(m, subscriberAccount) },
		configure: func(t *testing.T, home, baseURL string) []string {
			return configureClaude(t, home, baseURL, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-realagents-fake-token")
		},
		totals: claudeTotals,
		says: map[errorKind]string{
			quotaError: "You've hit your weekly limit",
		},
		skip: map[string]string{
			"tags-not-in-words": "same as claude with an API key: the account changes only the rate-limit headers",
			"bad-credentials":   "same as claude with an API key: a 401 is read the same whatever the account",
			"server-errors":     "same as claude with an API key: 500 and 529 are read the same whatever the account",
			"hung-stream":       "same as claude with an API key: the account plays no part in a stream that never ends",
			"inline-until":      "same as claude with an API key: the account plays no part in the prompt",
			"until-feedback":    "same as claude with an API key: the account plays no part in the prompt",
			"template":          "same as claude with an API key: the account plays no part in the prompt",
			"judge":             "same as claude with an API key: the judge is the same CLI, read the same whatever the account",
			"judge-words":       "same as claude with an API key: the judge is the same CLI, read the same whatever the account",
			"judge-hangs":       "same as claude with an API key: the account plays no part in a stream that never ends",
			"judge-writes":      "same as claude with an API key: the judge is the same CLI, whatever the account",
			"judge-cmd-writes":  "same as claude with an API key: the judge is the same CLI, whatever the account",
		},
	})
}

// claudeAnthropic is the Messages API mock (anthropic_test.go) as Claude Code meets it:
// its shell tool is Bash, and a 5xx answer takes a second (anthropic.fail says why).
func claudeAnthropic(m *mock, account anthropicAccount) *anthropic {
	return &anthropic{m: m, account: account, shellTool: "Bash", slowErrors: time.Second}
}

// configureClaude points Claude Code at the mock and turns off what it would otherwise
// do on its own: update itself, send telemetry and error reports, retry failed requests
// (git-ralph's retries and waits are what the scenarios test), ask the onboarding and
// bypass-permissions questions.
func configureClaude(t *testing.T, home, baseURL, credential string) []string {
	writeFile(t, filepath.Join(home, ".claude.json"), `{
  "hasCompletedOnboarding": true,
  "bypassPermissionsModeAccepted": true,
  "autoUpdates": false
}
`)
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{
  "autoUpdates": false,
  "includeCoAuthoredBy": false,
  "cleanupPeriodDays": 1
}
`)
	return []string{
		"ANTHROPIC_BASE_URL=" + baseURL,
		credential,
		"IS_SANDBOX=1", // the tests run as root, where bypass mode refuses to start without it
		"CLAUDE_CODE_MAX_RETRIES=0",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	}
}

// claudeTotals reads the usage and cost of Claude Code's own result events (one per
// attempt; summed). "Tokens equal" means: input_tokens and output_tokens as the result
// states them. Claude's input_tokens leave out the prompt cache, which it counts apart
// (cache_read_input_tokens, cache_creation_input_tokens) and git-ralph records apart
// (cache_read_tokens, cache_write_tokens); the mock reports cache tokens too, so a
// reader that folds them into the input is caught here, and the recorded fixtures
// (loop/agentcli/recorded_claude_test.go) check the cache counts themselves.
func claudeTotals(output []byte) (usage, float64, bool) {
	var tokens usage
	var cost float64
	found := false
	for line := range bytes.Lines(output) {
		var e struct {
			Type  string `json:"type"`
			Usage *struct {
				Input  int64 `json:"input_tokens"`
				Output int64 `json:"output_tokens"`
			} `json:"usage"`
			Cost *float64 `json:"total_cost_usd"`
		}
		if json.Unmarshal(bytes.TrimSpace(line), &e) != nil || e.Type != "result" {
			continue
		}
		found = true
		if e.Usage != nil {
			tokens.Input += e.Usage.Input
			tokens.Output += e.Usage.Output
		}
		if e.Cost != nil {
			cost += *e.Cost
		}
	}
	return tokens, cost, found
}

// TestClaudeSubscriberSpendCap: a subscriber past the five-hour window whose extra usage
// is refused by the organization's monthly spend cap. Claude Code says only "You've hit
// your org's monthly spend limit", but its rate_limit_event says when the window resets,
// and then the plan serves again: the loop waits for it, as for any limit, rather than
// stop as if the cap were the limit.
func TestClaudeSubscriberSpendCap(t *testing.T) {
	if why := skipReason(); why != "" {
		t.Skip("the real agent CLIs are not run:", why)
	}
	t.Parallel()
	c := claudeSubscriber(func(a *anthropic) { a.spendCap = true })
	concurrent <- struct{}{}
	defer func() { <-concurrent }()
	r := newRun(t, c, append([]turn{
		{Fail: &apiError{Kind: limitError, ResetIn: 4 * time.Second}, Lasts: 4 * time.Second},
	}, successScript()...))
	checkLimitReset(r)
	// the iteration's tokens and cost are those of its attempts together
	checkUsage(r, r.history()[0])
	r.record("spend-cap")
}

// TestClaudeSubscriberOverage: a subscriber past the five-hour window with extra usage
// turned on is served, paid as overage: claude prints the window "rejected" with
// isUsingOverage and goes on. That is no limit: the loop neither waits nor stops, and the
// record says overage. With stop_on_overage the loop stops after that iteration.
func TestClaudeSubscriberOverage(t *testing.T) {
	if why := skipReason(); why != "" {
		t.Skip("the real agent CLIs are not run:", why)
	}
	t.Parallel()
	c := claudeSubscriber(func(a *anthropic) { a.overage = true })
	unfinished := []turn{
		{Text: "Adding agent.txt.", Shell: commitCommand},
		{Text: "I added agent.txt. One more item is left."},
	}
	concurrent <- struct{}{}
	defer func() { <-concurrent }()

	r := newRun(t, c, successScript())
	res := r.loop("--max", "2")
	if res.code != 0 || strings.Contains(res.stderr, "usage limit") {
		t.Fatalf("want exit 0 without a limit: overage is served\n%s", res)
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Outcome != "done" || recs[0].RateLimitWaits != 0 || !onOverage(r)[0] {
		t.Errorf("want one iteration done, on overage, without a wait; got %+v", recs)
	}
	checkUsage(r, recs[0])
	r.record("overage")

	r = newRun(t, c, unfinished)
	r.env = append(r.env, "RALPH_STOP_ON_OVERAGE=true")
	res = r.loop("--max", "3")
	if res.code != 4 || !strings.Contains(res.stderr, "overage") {
		t.Fatalf("want exit 4 with stop_on_overage, saying why\n%s", res)
	}
	if over := onOverage(r); len(over) != 1 || !over[0] {
		t.Errorf("want one iteration on overage, then the stop; got %v", over)
	}
}

// claudeSubscriber is claude-subscriber against a mock whose account set changes (its
// spend cap, its overage).
func claudeSubscriber(set func(*anthropic)) agentCLI {
	c := clis["claude-subscriber"]
	c.api = func(m *mock) http.Handler {
		a := claudeAnthropic(m, subscriberAccount)
		set(a)
		return a
	}
	return c
}

// onOverage says of each iteration in the history whether it was served on overage
// (the field is claude's alone, so it is read here rather than in the harness's record).
func onOverage(r *run) []bool {
	r.t.Helper()
	res := r.ralph("history", "--json")
	var recs []struct {
		Overage bool `json:"overage"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &recs); err != nil {
		r.t.Fatalf("git ralph history --json: %v\n%s", err, res)
	}
	out := make([]bool, len(recs))
	for i, rec := range recs {
		out[i] = rec.Overage
	}
	return out
}
