package apiagent

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Record is one line of the exchange Run writes to Request.Out: the system prompt, the
// user's prompt, each turn's thinking, text, tool calls, tool results and usage, each
// retry and the end. Fields that do not apply to a type are left out. The lines carry
// everything the model was sent and said, in order, so that a view can render the
// exchange and a test can replay it; they never carry the key.
type Record struct {
	Type string `json:"type"` // one of the Rec… constants
	// MS is the time since Run began, in milliseconds.
	MS      int64 `json:"ms"`
	Turn    int   `json:"turn,omitempty"`    // the model request it belongs to, from 1
	Attempt int   `json:"attempt,omitempty"` // RecRequest, RecRetry: the attempt of the turn, from 1
	// RecStart: what is talked to.
	Protocol string `json:"protocol,omitempty"`
	Model    string `json:"model,omitempty"`
	BaseURL  string `json:"base_url,omitempty"`
	// RecSystem, RecPrompt, RecThinking, RecText: the words.
	Text string `json:"text,omitempty"`
	// RecToolCall, RecToolResult: the call.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"` // the call's arguments; a JSON string when they were not JSON
	// RecToolResult: what the model is told.
	Output  string `json:"output,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
	// RecRequest: the size of the request body.
	Bytes int `json:"bytes,omitempty"`
	// RecUsage: the turn's tokens; RecEnd: the iteration's.
	Usage *Usage `json:"usage,omitempty"`
	// RecUsage: the tokens of the conversation so far (what the next turn starts from).
	Context int64 `json:"context,omitempty"`
	// RecUsage: why the model stopped, in the vendor's words (end_turn, tool_use, …).
	Stop string `json:"stop,omitempty"`
	// RecRetry, RecError: the failure.
	Kind    string     `json:"kind,omitempty"`
	Status  int        `json:"status,omitempty"`
	Message string     `json:"message,omitempty"`
	ResetAt *time.Time `json:"reset_at,omitempty"`
	WaitMS  int64      `json:"wait_ms,omitempty"` // RecRetry: the wait before the next attempt
	// RecError: a limit that waiting will not clear soon (a quota, a spend cap).
	Permanent bool `json:"permanent,omitempty"`
	// RecEnd: the turns used, and the cost of the usage when the model's price is known.
	Turns   int      `json:"turns,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// The types of Record.
const (
	RecStart      = "start"
	RecSystem     = "system"
	RecPrompt     = "prompt"
	RecRequest    = "request"
	RecThinking   = "thinking"
	RecText       = "text"
	RecToolCall   = "tool_call"
	RecToolResult = "tool_result"
	RecUsage      = "usage"
	RecRetry      = "retry"
	RecError      = "error"
	RecEnd        = "end"
)

// recorder writes Records as JSON lines, each whole in one Write, the key replaced
// wherever it appears. A failing writer is not an error of the iteration: the exchange
// goes on and Result still says what happened.
type recorder struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	scrub func([]byte) []byte
}

func (r *recorder) write(rec Record) {
	if r.w == nil {
		return
	}
	rec.MS = time.Since(r.start).Milliseconds()
	line, err := marshal(rec)
	if err != nil {
		return
	}
	line = append(r.scrub(line), '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(line)
}

// rawInput is a call's arguments as a Record keeps them: as they are when they are JSON,
// as a JSON string when they are not (a model's broken call is kept, not dropped).
func rawInput(input []byte) json.RawMessage {
	if len(bytes.TrimSpace(input)) == 0 {
		return nil
	}
	if json.Valid(input) {
		return json.RawMessage(input)
	}
	quoted, _ := marshal(string(input))
	return quoted
}

// scrubber replaces every occurrence of key in a text, raw or as JSON escapes it.
func scrubber(key string) func([]byte) []byte {
	if len(key) < 4 {
		return func(b []byte) []byte { return b }
	}
	raw := []byte(key)
	quoted, _ := marshal(key)
	escaped := quoted[1 : len(quoted)-1]
	return func(b []byte) []byte {
		b = bytes.ReplaceAll(b, raw, []byte("[api key]"))
		if !bytes.Equal(escaped, raw) {
			b = bytes.ReplaceAll(b, escaped, []byte("[api key]"))
		}
		return b
	}
}
