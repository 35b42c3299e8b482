package agentcli

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// claudeRenderEvent is the union of the fields a Claude-shaped stream's events show:
// claude's stream-json, amp's --stream-json, cursor-agent's stream-json.
type claudeRenderEvent struct {
	claudeEvent
	Message struct { // in place of claudeEvent's: with the tool calls and results
		ID      string `json:"id"`
		Content []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
			ID       string          `json:"id"`          // tool_use
			Name     string          `json:"name"`        // tool_use
			Input    json.RawMessage `json:"input"`       // tool_use
			ToolID   string          `json:"tool_use_id"` // tool_result
			Content  json.RawMessage `json:"content"`     // tool_result: a string or text blocks
			IsError  bool            `json:"is_error"`    // tool_result
		} `json:"content"`
		Usage *claudeUsage `json:"usage"`
	} `json:"message"`
	// cursor-agent's tool_call events: {"readToolCall":{"args":{…},"result":{…}}}
	CallID   string                     `json:"call_id"`
	ToolCall map[string]json.RawMessage `json:"tool_call"`
}

// claudeRender renders one event of a Claude-shaped stream.
func (r *Renderer) claudeRender(typ string, line []byte) []string {
	var e claudeRenderEvent
	_ = json.Unmarshal(line, &e)
	switch typ {
	case "system":
		return r.claudeSystemRender(e)
	case "assistant":
		return r.claudeAssistantRender(e)
	case "user":
		return r.claudeToolResults(e)
	case "tool_call":
		return r.cursorToolCall(e)
	case "rate_limit_event":
		return r.claudeRateLimitRender(e.RateLimitInfo)
	case "result":
		return r.claudeResultRender(e)
	case "error":
		return r.problem(errorText(line))
	}
	return nil
}

func (r *Renderer) claudeSystemRender(e claudeRenderEvent) []string {
	switch e.Subtype {
	case "init":
		if e.Model != "" {
			r.usage.Model = e.Model
			return []string{"• model " + Plain(oneLine(e.Model, 60))}
		}
	case "api_retry":
		status := ""
		if e.ErrorStatus != nil {
			status = fmt.Sprintf(" with status %d", *e.ErrorStatus)
		}
		return r.problem(fmt.Sprintf("API request failed%s (%s), retrying: attempt %d of %d",
			status, jsonString(e.Error), e.Attempt, e.MaxRetries))
	}
	return nil
}

// claudeAssistantRender shows an assistant message's text, thinking and tool calls.
func (r *Renderer) claudeAssistantRender(e claudeRenderEvent) []string {
	var out []string
	synthetic := len(e.Error) > 0 // a failed API call, told as a message: "Invalid API key · …"
	for _, c := range e.Message.Content {
		switch c.Type {
		case "text":
			if synthetic {
				out = append(out, r.problem(c.Text)...)
				continue
			}
			out = append(out, r.words(c.Text)...)
		case "thinking":
			if t := oneLine(c.Thinking, 160); t != "" {
				out = append(out, "(thinking) "+Plain(t))
			}
		case "tool_use":
			r.rememberTool(c.ID, c.Name)
			out = append(out, toolLine(c.Name, toolTarget(c.Input)))
		}
	}
	if u := e.Message.Usage; u != nil {
		id := e.Message.ID
		if id == "" { // amp's messages have no id: each event is a message of its own
			id = fmt.Sprintf("#%d", len(r.claudeMsgs))
		}
		if len(r.claudeMsgs) < 10000 {
			r.claudeMsgs[id] = *u
		}
	}
	return out
}

// claudeNoOutput is what claude's Bash tool says for a command that printed nothing.
var claudeNoOutput = lazyregexp.New(`^\(\w+ completed with no output\)$`)

// claudeExitCode is how claude's Bash tool starts the result of a failed command.
var claudeExitCode = lazyregexp.New(`^Exit code (\d+)`)

// claudeToolResults shows the results of tool calls; the prompt a CLI echoes as a user
// message is not shown.
func (r *Renderer) claudeToolResults(e claudeRenderEvent) []string {
	var out []string
	for _, c := range e.Message.Content {
		if c.Type != "tool_result" {
			continue
		}
		text := toolResultText(c.Content)
		if claudeNoOutput.MatchString(strings.TrimSpace(text)) {
			text = ""
		}
		status := ""
		if c.IsError {
			status = "error"
			if m := claudeExitCode.FindStringSubmatch(text); m != nil {
				status = "exit " + m[1]
			}
		}
		out = append(out, resultLine(status, text, c.IsError))
	}
	return out
}

// toolResultText is a tool result's content: a string, or the text of its blocks.
func toolResultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// cursorToolCall shows cursor-agent's tool_call events: started, then completed.
func (r *Renderer) cursorToolCall(e claudeRenderEvent) []string {
	for kind, raw := range e.ToolCall {
		var call struct {
			Args   json.RawMessage `json:"args"`
			Result struct {
				Success *struct {
					Content string `json:"content"`
				} `json:"success"`
				Error json.RawMessage `json:"error"`
			} `json:"result"`
		}
		_ = json.Unmarshal(raw, &call)
		tool := strings.TrimSuffix(kind, "ToolCall")
		switch e.Subtype {
		case "started":
			return []string{toolLine(tool, toolTarget(call.Args))}
		case "completed":
			if len(call.Result.Error) > 0 && string(call.Result.Error) != "null" {
				return []string{resultLine("error", jsonString(call.Result.Error), true)}
			}
			text := ""
			if call.Result.Success != nil {
				text = call.Result.Success.Content
			}
			return []string{resultLine("", text, false)}
		}
		break // one tool per event
	}
	return nil
}

// claudeRateLimitRender shows a rate_limit_event that says something: a warning, a
// rejected window, or paid extra usage.
func (r *Renderer) claudeRateLimitRender(info *claudeRateLimit) []string {
	if info == nil {
		return nil
	}
	window := ""
	if info.RateLimitType != "" {
		window = " (" + info.RateLimitType + ")"
	}
	resets := ""
	if at := info.reset(time.UTC); !at.IsZero() {
		resets = ", resets " + at.Format("2006-01-02 15:04 UTC")
	}
	switch {
	case info.IsUsingOverage:
		return r.problem("usage limit reached" + window + ": served on paid extra usage" + resets)
	case info.Status == "rejected":
		return r.problem("usage limit reached" + window + resets)
	case info.Status == "allowed_warning":
		return r.problem("usage limit warning" + window + resets)
	}
	return nil
}

// claudeResultRender shows how the run ended: its error, or its text when no message
// showed it, then the tokens and cost.
func (r *Renderer) claudeResultRender(e claudeRenderEvent) []string {
	var out []string
	if e.IsError {
		out = r.problem(e.Result)
	} else if !r.said {
		out = r.words(e.Result)
	}
	u := Usage{Model: r.usage.Model}
	if e.Usage != nil {
		u.InputTokens, u.OutputTokens = e.Usage.InputTokens, e.Usage.OutputTokens
		u.CacheReadTokens, u.CacheWriteTokens = e.Usage.CacheRead, e.Usage.CacheWrite
	} else {
		u = sumClaudeUsage(r.claudeMsgs, u.Model)
	}
	if e.TotalCostUSD != nil {
		u.CostUSD, u.HasCost = *e.TotalCostUSD, true
	}
	return append(out, usageRendered(u)...)
}
