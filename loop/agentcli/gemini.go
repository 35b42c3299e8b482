package agentcli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// geminiEvent is the union of the fields git-ralph reads from `gemini --output-format
// stream-json` (gemini-cli 0.61: init, message, tool_use, tool_result, error, result).
type geminiEvent struct {
	Model    string `json:"model"`    // init
	Role     string `json:"role"`     // message: "user" (the prompt, echoed) or "assistant"
	Content  string `json:"content"`  // message
	Delta    bool   `json:"delta"`    // message: a chunk of the assistant's text
	Severity string `json:"severity"` // error: "warning" or "error"
	Message  string `json:"message"`  // error
	Status   string `json:"status"`   // result: "success" or "error"
	Error    *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Stats *geminiStats `json:"stats"`
}

// geminiStats is the result's token counts, summed over every model of the run.
type geminiStats struct {
	TotalTokens  int64                      `json:"total_tokens"`
	InputTokens  int64                      `json:"input_tokens"` // promptTokenCount: the cached part included
	OutputTokens int64                      `json:"output_tokens"`
	Cached       int64                      `json:"cached"`
	Models       map[string]json.RawMessage `json:"models"`
}

// output is the run's output tokens with its thoughts, which gemini leaves out of
// output_tokens (candidatesTokenCount) and counts only in total_tokens (input + output
// + thoughts), though the API bills them as output like every other agent's reasoning.
func (s geminiStats) output() int64 {
	if s.TotalTokens > s.InputTokens+s.OutputTokens && s.InputTokens >= 0 {
		return s.TotalTokens - s.InputTokens
	}
	return s.OutputTokens
}

// geminiState joins the assistant's chunks: a promise tag may be split across two.
type geminiState struct {
	text strings.Builder
}

// geminiEvent reads one event of gemini's stream-json.
func (r *reading) geminiEvent(typ string, line []byte) {
	var e geminiEvent
	_ = json.Unmarshal(line, &e)
	if typ == "message" && e.Role == "assistant" {
		r.gemini.text.WriteString(e.Content)
		if !e.Delta {
			r.geminiFlush()
		}
		return
	}
	r.geminiFlush()
	switch typ {
	case "init":
		if e.Model != "" {
			r.rep.Usage.Model = e.Model
		}
	case "error":
		// Even a severity "error" event may be followed by a recovery; it counts if the
		// run fails without a message of its own.
		r.warning(e.Message)
	case "result":
		r.geminiResult(e)
	}
}

// geminiFlush ends the assistant's current message.
func (r *reading) geminiFlush() {
	r.say(r.gemini.text.String())
	r.gemini.text.Reset()
}

// geminiResult reads the run's final event: its status, error and token counts.
func (r *reading) geminiResult(e geminiEvent) {
	// A failed result without an error of its own leaves the error events to explain it.
	r.ended, r.completed = e.Status == "success" || e.Error != nil, e.Status == "success"
	if e.Status == "error" {
		r.rep.IsError = true
		if e.Error != nil {
			if strings.Contains(e.Error.Type, "Authentication") {
				r.resultErr = strings.TrimSpace(e.Error.Message)
				r.fatal(e.Error.Message)
			} else {
				r.failedWith(geminiAPIError(e.Error.Message))
			}
		}
	}
	if s := e.Stats; s != nil {
		u := &r.rep.Usage
		u.InputTokens, u.OutputTokens, u.CacheReadTokens = s.InputTokens, s.output(), s.Cached
		u.CachedInInput = true // input_tokens is promptTokenCount, which holds the cached content
		if (u.Model == "" || u.Model == "auto") && len(s.Models) > 0 {
			models := make([]string, 0, len(s.Models))
			for m := range s.Models {
				models = append(models, m)
			}
			slices.Sort(models)
			u.Model = strings.Join(models, ",")
		}
	}
}

// geminiAPIErrorRule matches the message gemini's result carries for an API error: the
// API's JSON error body, quoted whole ("[API Error: {\"error\":{…}}]").
var geminiAPIErrorRule = lazyregexp.New(`(?s)^\[API Error: (\{.*\})\]$`)

// geminiAPIError is the API error msg quotes, in words: "API Error: 400 INVALID_ARGUMENT
// (API_KEY_INVALID): API key not valid. Please pass a valid API key."; msg itself when
// it quotes none.
func geminiAPIError(msg string) string {
	m := geminiAPIErrorRule.FindStringSubmatch(strings.TrimSpace(msg))
	if m == nil {
		return msg
	}
	var body struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
			Details []struct {
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(m[1]), &body) != nil || body.Error.Message == "" {
		return msg
	}
	e := body.Error
	head := fmt.Sprintf("API Error: %d %s", e.Code, e.Status)
	for _, d := range e.Details {
		if d.Reason != "" {
			head += " (" + d.Reason + ")"
			break
		}
	}
	return head + ": " + e.Message
}
