package agentcli

import (
	"encoding/json"
	"time"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// codexEvent is the union of the fields git-ralph reads from `codex exec --json`.
type codexEvent struct {
	Message string `json:"message"` // error
	Item    struct {
		Type     string `json:"type"`
		ItemType string `json:"item_type"` // older releases
		Text     string `json:"text"`
		Message  string `json:"message"` // item type "error"
	} `json:"item"`
	Usage *struct {
		InputTokens  int64 `json:"input_tokens"`
		CachedInput  int64 `json:"cached_input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// codexReconnect is Codex's notice that it is retrying a dropped stream: "Reconnecting...
// 2/5 (stream disconnected …)", later "Reconnecting... waiting for network".
var codexReconnect = lazyregexp.New(`^Reconnecting\.\.\.`)

// codexEvent reads one event of `codex exec --json`.
func (r *reading) codexEvent(typ string, line []byte) {
	var e codexEvent
	_ = json.Unmarshal(line, &e)
	switch typ {
	case "item.completed":
		itemType := e.Item.Type
		if itemType == "" {
			itemType = e.Item.ItemType
		}
		switch itemType {
		case "agent_message", "assistant_message":
			r.say(e.Item.Text)
		case "error":
			r.warning(e.Item.Message) // "Falling back from WebSockets to HTTPS transport. …"
		}
	case "turn.completed":
		r.ended, r.completed = true, true
		if u := e.Usage; u != nil {
			r.rep.Usage.InputTokens += u.InputTokens
			r.rep.Usage.CacheReadTokens += u.CachedInput
			r.rep.Usage.CachedInInput = true
			r.rep.Usage.OutputTokens += u.OutputTokens
		}
	case "turn.failed":
		r.ended, r.rep.IsError = true, true
		r.codexClockLimit(e.Error.Message)
		r.failedWith(e.Error.Message)
	case "error":
		// Reconnect notices are not a failure by themselves; a usage limit comes as an
		// error event and then turn.failed with the same message.
		if codexReconnect.MatchString(e.Message) {
			r.retrying(e.Message)
		} else {
			r.warning(e.Message)
		}
	}
}

// codexClockReset is how Codex states a usage limit's reset: "… or try again at 4:58 AM."
// (today) or "… at Nov 26th, 2026 4:58 AM.", the API's resets_at in local time cut down
// to the minute (seen against a mock API: resets_at 04:58:57 printed as "4:58 AM").
var codexClockReset = lazyregexp.New(`(?i)\btry again at\b`)

// codexClockLimit records the usage limit msg states, resetting at the end of the minute
// it names: read as its start, the loop would run codex again up to a minute before the
// limit resets, only to be refused and wait again.
func (r *reading) codexClockLimit(msg string) {
	if classify(msg) != limitKind || !codexClockReset.MatchString(msg) {
		return
	}
	if at := resetIn(msg, r.now); !at.IsZero() {
		r.limit(msg, at.Add(time.Minute), false)
	}
}
