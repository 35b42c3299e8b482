package agentcli

import (
	"encoding/json"
	"fmt"
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
			Input  int64 `json:"input"`
			Output int64 `json:"output"`
			Cache  struct {
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
		u.OutputTokens += p.Tokens.Output
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

// opencodeError reads a session error. opencode itself exits 1 after one, but it may
// hang instead on a quota error it keeps retrying (anomalyco/opencode#8203).
func (r *reading) opencodeError(e opencodeEvent) {
	r.rep.IsError, r.ended, r.completed = true, true, false
	msg := e.Error.Data.Message
	if msg == "" {
		msg = e.Error.Name
	}
	if r.failure(msg) != noKind {
		return
	}
	switch code := e.Error.Data.StatusCode; {
	case e.Error.Name == "ProviderAuthError" || code == 401 || code == 403:
		r.fatal(msg)
	case code == 429:
		r.limit(msg, time.Time{}, false)
	case code >= 500:
		r.transient(fmt.Sprintf("%s (status %d)", msg, code))
	}
}
