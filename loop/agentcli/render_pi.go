package agentcli

import (
	"encoding/json"
	"fmt"
	"strings"
)

// piRenderEvent is the union of the fields pi's JSON events show.
type piRenderEvent struct {
	piEvent
	Message struct {
		piMessage
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Thinking string `json:"thinking"`
		} `json:"content"`
	} `json:"message"`
	ToolCallID string          `json:"toolCallId"` // tool_execution_*
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`    // tool_execution_start
	IsError    bool            `json:"isError"` // tool_execution_end
	Result     struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

// piRender renders one event of `pi -p --mode json`: each assistant message once, whole,
// from its message_end (message_update repeats it as it grows), the tool calls from
// tool_execution_start/end, retries, and the tokens and cost summed at agent_end.
func (r *Renderer) piRender(typ string, line []byte) []string {
	var e piRenderEvent
	_ = json.Unmarshal(line, &e)
	switch typ {
	case "message_end":
		return r.piMessageRender(e)
	case "tool_execution_start":
		r.rememberTool(e.ToolCallID, e.ToolName)
		return []string{toolLine(e.ToolName, toolTarget(e.Args))}
	case "tool_execution_end":
		var text strings.Builder
		for _, c := range e.Result.Content {
			if c.Type == "text" {
				text.WriteString(c.Text)
			}
		}
		status, out := "", text.String()
		if e.IsError {
			status = "error"
		}
		if out == "(no output)" { // pi's bash says so for a command that printed nothing
			out = ""
		}
		return []string{resultLine(status, out, e.IsError)}
	case "auto_retry_start":
		return r.problem(fmt.Sprintf("%s (retrying: attempt %d of %d)", e.ErrorMessage, e.Attempt, e.MaxAttempts))
	case "auto_retry_end":
		if e.Success != nil && !*e.Success {
			return r.problem(e.FinalError)
		}
	case "agent_end":
		if u := r.usage; u.InputTokens+u.OutputTokens == 0 && u.CostUSD == 0 {
			return nil // only failed calls so far, each with zero tokens
		}
		return usageRendered(r.usage)
	}
	return nil
}

// piMessageRender shows a finished assistant message: its thinking in brief, its text,
// its error; and adds its tokens and cost.
func (r *Renderer) piMessageRender(e piRenderEvent) []string {
	m := e.Message
	if m.Role != "assistant" {
		return nil
	}
	var out []string
	for _, c := range m.Content {
		switch c.Type {
		case "thinking":
			if t := oneLine(c.Thinking, 160); t != "" {
				out = append(out, "(thinking) "+Plain(t))
			}
		case "text":
			out = append(out, r.words(c.Text)...)
		}
	}
	m.addUsage(&r.usage)
	if m.StopReason == "error" || m.StopReason == "aborted" {
		msg := m.ErrorMessage
		if msg == "" {
			msg = "the model call ended: " + m.StopReason
		}
		out = append(out, r.problem(msg)...)
	}
	return out
}
