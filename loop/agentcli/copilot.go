package agentcli

import (
	"encoding/json"
	"time"
)

// copilotEvent is the union of the fields git-ralph reads from `copilot --output-format
// json`: the session's events {type, data} (the CLI's schemas/session-events.schema.json)
// and a final {type:"result", exitCode, usage:{premiumRequests, …}}. The prompt comes
// back as a user.message event, which is never read.
type copilotEvent struct {
	Data struct {
		Content    string `json:"content"`      // assistant.message
		Model      string `json:"model"`        // assistant.message
		ErrorType  string `json:"errorType"`    // session.error: "rate_limit", "quota", "authentication", …
		ErrorCode  string `json:"errorCode"`    // session.error: "user_weekly_rate_limited", "quota_exceeded", …
		Message    string `json:"message"`      // session.error
		ErrorBody  string `json:"errorMessage"` // model.call_failure: the provider's error body
		StatusCode int    `json:"statusCode"`   // session.error
	} `json:"data"`
	ExitCode *int `json:"exitCode"` // result
}

// copilotState is what the last failed model call said before the session's error.
type copilotState struct {
	// its errorCode, errorType and errorMessage: the provider's own code
	// ("insufficient_quota"), which 1.0.92 gave only inside the error body
	lastFailure string
}

// copilotEvent reads one event of `copilot --output-format json`.
func (r *reading) copilotEvent(typ string, line []byte) {
	var e copilotEvent
	_ = json.Unmarshal(line, &e)
	switch typ {
	case "assistant.message":
		r.say(e.Data.Content)
		if e.Data.Model != "" {
			r.rep.Usage.Model = e.Data.Model
		}
	case "model.call_failure":
		// The provider's own error code of each failed model call (BYOK: OpenAI's
		// "insufficient_quota"); the session.error that follows has only the CLI's
		// errorType for it, "rate_limit" whether the limit resets or not.
		r.copilot.lastFailure = e.Data.ErrorCode + " " + e.Data.ErrorType + " " + e.Data.ErrorBody
	case "session.error":
		r.copilotError(e)
	case "result":
		r.ended = true
		if e.ExitCode != nil && *e.ExitCode != 0 {
			r.rep.IsError = true
		} else {
			r.completed = true
		}
	}
}

// copilotError reads session.error by its errorType first, its words second.
func (r *reading) copilotError(e copilotEvent) {
	d := e.Data
	r.rep.IsError = true
	msg := d.Message
	if msg == "" {
		msg = d.ErrorType + " " + d.ErrorCode
	}
	// the session's error is how the run ended: its words are the iteration's error,
	// whatever kind it is (a provider's 400 is errorType "query")
	if r.resultErr == "" {
		r.resultErr = msg
	}
	switch {
	case d.ErrorType == "rate_limit" || d.StatusCode == 429:
		r.limit(msg, time.Time{}, false)
		if permanent(r.copilot.lastFailure) {
			// no credits left at the provider: retrying the same key will not help
			r.rep.Limit.Permanent = true
		}
	case d.ErrorType == "quota":
		// quota_exceeded, billing_not_configured: no premium requests left this month.
		r.limit(msg, time.Time{}, false)
		r.rep.Limit.Permanent = true
	case d.ErrorType == "authentication" || d.ErrorType == "authorization" || d.ErrorType == "policy":
		r.fatal(msg)
	case d.StatusCode >= 500:
		r.transient(msg)
	default:
		r.failure(msg)
	}
}
