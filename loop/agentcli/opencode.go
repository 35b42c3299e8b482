package agentcli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// opencodeEvent is the union of the fields git-ralph reads from `opencode run --format
// json`: {type, timestamp, sessionID, part} for step_start, text, reasoning, tool_use
// and step_finish, and {type:"error", error:{name, data:{message, statusCode}}}.
type opencodeEvent struct {
	Part struct {
		Text   string   `json:"text"`   // text
		Reason string   `json:"reason"` // step_finish: "stop", "tool-calls", …
		Cost   *float64 `json:"cost"`   // step_finish
		Tokens *struct {
			Input     int64 `json:"input"`
			Output    int64 `json:"output"`
			Reasoning int64 `json:"reasoning"` // reported apart from output, billed as output
			Cache     struct {
				Read  int64 `json:"read"`
				Write int64 `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
	} `json:"part"`
	Error struct {
		Name string `json:"name"`
		Data struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
			// the provider's own answer to the failed request (APIError)
			ResponseBody    string            `json:"responseBody"`
			ResponseHeaders map[string]string `json:"responseHeaders"`
		} `json:"data"`
	} `json:"error"`
}

// opencodeEvent reads one event of `opencode run --format json`.
func (r *reading) opencodeEvent(typ string, line []byte) {
	var e opencodeEvent
	_ = json.Unmarshal(line, &e)
	switch typ {
	case "text":
		r.say(e.Part.Text)
	case "step_finish":
		r.opencodeStep(e)
	case "error":
		r.opencodeError(e)
	}
}

// opencodeStep adds a finished step's tokens and cost; a step that did not end in
// tool calls ends the run.
func (r *reading) opencodeStep(e opencodeEvent) {
	p, u := e.Part, &r.rep.Usage
	if p.Tokens != nil {
		u.InputTokens += p.Tokens.Input
		u.OutputTokens += p.Tokens.Output + p.Tokens.Reasoning
		u.CacheReadTokens += p.Tokens.Cache.Read
		u.CacheWriteTokens += p.Tokens.Cache.Write
	}
	if p.Cost != nil {
		u.CostUSD += *p.Cost
		u.HasCost = true
	}
	if p.Reason != "tool-calls" && !r.rep.IsError {
		r.ended, r.completed = true, true
	}
}

// opencodeError reads a session error, which opencode prints once it has given up, then
// exits 1. It retries a 429 or 5xx answer itself first, silently: 1.18 five times, each
// after the answer's retry-after or 2 s doubling (older versions without end,
// anomalyco/opencode#8203). A long retry-after (a daily or monthly quota) is slept
// through without a word (#40747): only the iteration timeout ends that.
func (r *reading) opencodeError(e opencodeEvent) {
	r.rep.IsError, r.ended, r.completed = true, true, false
	d := e.Error.Data
	msg := d.Message
	if msg == "" {
		msg = e.Error.Name
	}
	if r.failure(msg) == noKind {
		switch code := d.StatusCode; {
		case e.Error.Name == "ProviderAuthError" || code == 401 || code == 403:
			r.fatal(msg)
		case code == 429:
			r.limit(msg, time.Time{}, false)
		case code >= 500:
			r.transient(fmt.Sprintf("%s (status %d)", msg, code))
		}
	}
	if l := r.rep.Limit; l != nil {
		// OpenAI says "You exceeded your current quota" for an account without credit;
		// only the body's code (insufficient_quota) says that waiting will not help
		l.Permanent = l.Permanent || permanent(providerErrorCode(d.ResponseBody))
		if l.ResetAt.IsZero() {
			l.ResetAt = retryAfter(d.ResponseHeaders, r.now)
		}
	}
}

// providerErrorCode is the code and type of an OpenAI-style error body,
// {"error":{"code":…,"type":…}}: "insufficient_quota insufficient_quota".
func providerErrorCode(body string) string {
	var b struct {
		Error struct {
			Code any    `json:"code"`
			Type string `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &b) != nil {
		return ""
	}
	code, _ := b.Error.Code.(string)
	return strings.TrimSpace(code + " " + b.Error.Type)
}

// retryAfter is when the answer's retry-after header (seconds or an HTTP date) says to
// try again, zero without one, in now's zone like every other reset (an HTTP date is
// GMT). now is when the run ended, which is when opencode got that answer: it exits
// right after its last retry.
func retryAfter(headers map[string]string, now time.Time) time.Time {
	v := strings.TrimSpace(headers["retry-after"])
	if v == "" {
		return time.Time{}
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 && secs < 1e9 {
		return now.Add(time.Duration(secs * float64(time.Second)))
	}
	if at, err := http.ParseTime(v); err == nil {
		return at.In(now.Location())
	}
	return time.Time{}
}
