package agentcli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/lazyregexp"
	"github.com/git-ralph/git-ralph/loop/agentcli/resettime"
)

// claudeEvent is the union of the fields git-ralph reads from Claude Code's stream-json
// events (also amp's --stream-json and cursor-agent's stream-json, which copy its shape).
type claudeEvent struct {
	Subtype string `json:"subtype"`
	Model   string `json:"model"` // system/init
	// APIKeySource (system/init) is the credential claude runs on: "login", "none" (a
	// subscription), "ANTHROPIC_API_KEY" …; the loops that share a limit key on it.
	APIKeySource string          `json:"apiKeySource"`
	Error        json.RawMessage `json:"error"` // assistant: "authentication_failed"; system/api_retry: "unknown"
	Message      struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Usage *claudeUsage `json:"usage"`
	} `json:"message"`
	RateLimitInfo *claudeRateLimit `json:"rate_limit_info"`

	// result
	IsError        bool                       `json:"is_error"`
	Result         string                     `json:"result"`
	Usage          *claudeUsage               `json:"usage"`
	TotalCostUSD   *float64                   `json:"total_cost_usd"`
	APIErrorStatus *int                       `json:"api_error_status"`
	TerminalReason string                     `json:"terminal_reason"`
	ModelUsage     map[string]json.RawMessage `json:"modelUsage"`

	// system/api_retry
	Attempt     int  `json:"attempt"`
	MaxRetries  int  `json:"max_retries"`
	ErrorStatus *int `json:"error_status"`
}

type claudeUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	CacheRead    int64 `json:"cache_read_input_tokens"`
	CacheWrite   int64 `json:"cache_creation_input_tokens"`
}

// claudeRateLimit is rate_limit_event.rate_limit_info (handarbeit/fabrik#1815, PR #1820).
type claudeRateLimit struct {
	Status        string   `json:"status"` // allowed, allowed_warning, rejected
	ResetsAt      *float64 `json:"resetsAt"`
	RateLimitType string   `json:"rateLimitType"`
	// IsUsingOverage: the plan's window is spent, and requests are served as paid
	// extra usage ("status":"rejected" with it is not a limit).
	IsUsingOverage bool `json:"isUsingOverage"`
	// OverageDisabledReason says why extra usage was refused: out_of_credits,
	// org_level_disabled_until (the org's monthly spend cap; claude also renames the
	// API's org_spend_cap_reached so), member_level_disabled, …
	OverageDisabledReason string `json:"overageDisabledReason"`
	UnifiedWindows        map[string]struct {
		Utilization float64  `json:"utilization"`
		ResetsAt    *float64 `json:"resetsAt"`
	} `json:"unifiedWindows"`
}

// claudeState is what a Claude stream's earlier events leave for its result.
type claudeState struct {
	rateEvent   bool                   // a rate_limit_event was seen
	rateReset   time.Time              // the reset the latest rejected window states
	capOnly     bool                   // that window is one of the plan's, and only the org's spend cap refused the overage
	perMessage  map[string]claudeUsage // assistant usage by message id, for streams whose result has none (amp)
	resultUsage bool
}

// claudeEvent reads one event of a Claude-shaped stream.
func (r *reading) claudeEvent(typ string, line []byte) {
	if typ == "user" {
		return // tool results: file contents and command output, never the agent's words (frankbria/ralph-claude-code#183)
	}
	var e claudeEvent
	_ = json.Unmarshal(line, &e) // a field of an unexpected type is skipped; the others are kept
	switch typ {
	case "system":
		r.claudeSystem(e)
	case "assistant":
		r.claudeAssistant(e)
	case "rate_limit_event":
		r.claudeRateLimit(e.RateLimitInfo)
	case "result":
		r.claudeResult(e)
	case "error":
		r.rep.IsError = true
		r.failure(errorText(line))
	}
}

// claudeSystem reads the model from init, and api_retry notices.
func (r *reading) claudeSystem(e claudeEvent) {
	switch e.Subtype {
	case "init":
		if e.Model != "" {
			r.rep.Usage.Model = e.Model
		}
		r.rep.Account = e.APIKeySource
	case "api_retry":
		status := ""
		if e.ErrorStatus != nil {
			status = fmt.Sprintf(" with status %d", *e.ErrorStatus)
		}
		r.retrying(fmt.Sprintf("API request failed%s (%s), retrying: attempt %d of %d",
			status, jsonString(e.Error), e.Attempt, e.MaxRetries))
	}
}

// claudeAssistant reads an assistant message: its text blocks (not its tool calls), its
// usage, and the error code of a synthetic message that reports a failed API call.
func (r *reading) claudeAssistant(e claudeEvent) {
	m := e.Message
	var text string
	for _, c := range m.Content {
		if c.Type == "text" {
			r.say(c.Text)
			text += c.Text
		}
	}
	if r.rep.Usage.Model == "" && m.Model != "" && m.Model != "<synthetic>" {
		r.rep.Usage.Model = m.Model
	}
	if m.Usage != nil {
		if r.claude.perMessage == nil {
			r.claude.perMessage = map[string]claudeUsage{}
		}
		id := m.ID
		if id == "" { // amp's messages have no id: each event is a message of its own
			id = fmt.Sprintf("#%d", len(r.claude.perMessage))
		}
		r.claude.perMessage[id] = *m.Usage // claude sends one message as several events, each with its usage so far
	}
	r.claudeErrorCode(jsonString(e.Error), text)
}

// claudeErrorCode reads the error code Claude Code puts on a synthetic assistant
// message (and some streams on the result): text is the message that comes with it.
func (r *reading) claudeErrorCode(code, text string) {
	if text == "" {
		text = code
	}
	switch code {
	case "":
	case "authentication_failed":
		r.fatal(text) // "Not logged in · Please run /login"
	case "billing_error":
		r.limit(text, time.Time{}, false)
		r.rep.Limit.Permanent = true
	case "rate_limit":
		r.limit(text, time.Time{}, false)
	case "server_error":
		r.transient(text)
	default:
		r.failure(text)
	}
}

// claudeRateLimit reads a rate_limit_event. Only "rejected" without overage may be a
// limit; "allowed" and "allowed_warning" are information, and so is "rejected" with
// isUsingOverage: a subscriber on extra usage goes on being served, as paid overage.
// Even then the event is only a forecast: a run whose result is not an error was not
// limited (claudeResult). The reset is the latest of resetsAt and of the
// unifiedWindows at full utilization (handarbeit/fabrik PR #1820), in epoch seconds.
func (r *reading) claudeRateLimit(info *claudeRateLimit) {
	r.claude.rateEvent = true
	if info == nil {
		return
	}
	if info.IsUsingOverage {
		r.rep.Overage = true
		if info.Status == "rejected" { // the plan's window is spent until then
			r.rep.OverageUntil = info.reset(r.now.Location())
		}
		return
	}
	if info.Status != "rejected" {
		return
	}
	at := info.reset(r.now.Location())
	r.claude.rateReset = at
	r.claude.capOnly = !at.IsZero() && planWindow(info.RateLimitType) && spendCap(info.OverageDisabledReason)
	msg := "usage limit reached"
	if info.RateLimitType != "" {
		msg += " (" + info.RateLimitType + ")"
	}
	r.limit(msg, at, true)
}

// reset is when a rejected window resets: the latest of resetsAt and of the
// unifiedWindows at full utilization, in loc; zero when none is stated.
func (info *claudeRateLimit) reset(loc *time.Location) time.Time {
	var at time.Time
	later := func(v *float64) {
		if v == nil {
			return
		}
		if t, ok := resettime.Epoch(*v); ok && t.After(at) {
			at = t
		}
	}
	later(info.ResetsAt)
	for _, w := range info.UnifiedWindows {
		if w.Utilization >= 1 {
			later(w.ResetsAt)
		}
	}
	if !at.IsZero() {
		at = at.In(loc)
	}
	return at
}

// resultLimitLead matches a result text that is a limit notice even when the result
// does not say it is an error ("Claude AI usage limit reached|<epoch>" came with
// "subtype":"success","is_error":false).
var resultLimitLead = lazyregexp.New(`(?i)^\W*(?:claude (?:ai )?usage limit reached|you've hit your|you’ve hit your|you're out of extra usage|\d+-hour limit reached)`)

// claudeResult reads the run's final event. A result that is not an error means the
// run was served and finished: whatever limit the events before it forecast, it was
// not limited — unless the result text itself is a limit notice.
func (r *reading) claudeResult(e claudeEvent) {
	r.rep.IsError = r.rep.IsError || e.IsError
	limitNotice := resultLimitLead.MatchString(e.Result)
	r.ended, r.completed = true, !e.IsError && !limitNotice
	if r.completed {
		r.rep.Limit, r.guessed = nil, false
	}
	if e.Result != r.lastSaid() {
		r.say(e.Result)
	}
	r.claudeUsage(e)
	text := e.Result
	r.claudeErrorCode(jsonString(e.Error), text)
	if e.APIErrorStatus != nil {
		r.claudeAPIStatus(*e.APIErrorStatus, text)
	}
	if e.TerminalReason == "blocking_limit" && r.claude.rateEvent {
		// blocking_limit alone also ends runs whose prompt was too long: only with a
		// rate-limit event or a 429 is it a limit (handarbeit/fabrik PR #1202, #1818).
		r.limit(text, r.claude.rateReset, false)
	}
	if e.IsError || limitNotice {
		r.failedWith(text)
	}
	r.claudeWindowReopens(e)
}

// planWindow reports whether a rate_limit_event's rateLimitType is one of a
// subscription's own windows, which reopen at their reset ("overage", the paid extra
// usage, is not).
func planWindow(typ string) bool {
	return typ == "five_hour" || strings.HasPrefix(typ, "seven_day")
}

// spendCap reports whether extra usage was refused by the organization's monthly spend
// cap (claude 2.1.197 says "monthly spend limit" for these two reasons only).
func spendCap(reason string) bool {
	return reason == "org_level_disabled_until" || reason == "org_spend_cap_reached"
}

// claudeWindowReopens undoes the permanence a subscriber's limit message implies when
// only the spend cap stands between the subscriber and the plan's next window. Past a
// window, claude asks for extra usage; when the organization's monthly spend cap refuses
// it, claude says only "You've hit your org's monthly spend limit", without the window's
// reset — but the window reopens at the reset its rate_limit_event states, and the plan
// serves again then. Waiting for it is right; stopping as if the cap were the limit
// would end the night. Other refusals keep what their words say ("Your usage
// allocation has been disabled by your admin" stays permanent).
func (r *reading) claudeWindowReopens(e claudeEvent) {
	l := r.rep.Limit
	if l == nil || !l.Permanent || !r.claude.capOnly || e.APIErrorStatus == nil || *e.APIErrorStatus != 429 {
		return
	}
	if !r.claude.rateReset.After(r.now) {
		// the window has reopened already, yet the run was refused: the cap is what
		// refuses it, and waiting for a reset gone by would only run claude again and again
		return
	}
	l.Permanent, l.ResetAt = false, r.claude.rateReset
}

// claudeAPIStatus reads result.api_error_status, the HTTP status of the failed call.
func (r *reading) claudeAPIStatus(status int, text string) {
	if text == "" {
		text = fmt.Sprintf("API error %d", status)
	}
	switch {
	case status == 429:
		r.limit(text, time.Time{}, false)
	case status == 401 || status == 403:
		r.fatal(text)
	case status >= 500:
		r.transient(text) // 529 overloaded, 5xx
	}
}

// claudeUsage takes the tokens and cost from the result, or sums the assistant
// messages' when the result has none.
func (r *reading) claudeUsage(e claudeEvent) {
	u := &r.rep.Usage
	if e.Usage != nil {
		u.InputTokens, u.OutputTokens = e.Usage.InputTokens, e.Usage.OutputTokens
		u.CacheReadTokens, u.CacheWriteTokens = e.Usage.CacheRead, e.Usage.CacheWrite
		r.claude.resultUsage = true
	} else if !r.claude.resultUsage {
		*u = sumClaudeUsage(r.claude.perMessage, u.Model)
	}
	if e.TotalCostUSD != nil {
		u.CostUSD, u.HasCost = *e.TotalCostUSD, true
	}
	if u.Model == "" && len(e.ModelUsage) > 0 {
		models := make([]string, 0, len(e.ModelUsage))
		for m := range e.ModelUsage {
			models = append(models, m)
		}
		slices.Sort(models)
		u.Model = models[0]
	}
}

func sumClaudeUsage(perMessage map[string]claudeUsage, model string) Usage {
	u := Usage{Model: model}
	for _, m := range perMessage {
		u.InputTokens += m.InputTokens
		u.OutputTokens += m.OutputTokens
		u.CacheReadTokens += m.CacheRead
		u.CacheWriteTokens += m.CacheWrite
	}
	return u
}
