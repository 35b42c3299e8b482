package agentcli

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// geminiRender renders one event of gemini's stream-json. The assistant's text comes in
// chunks (delta) that may cut a line anywhere: lines are shown as they complete.
func (r *Renderer) geminiRender(typ string, line []byte) []string {
	var e struct {
		geminiEvent
		ToolName   string          `json:"tool_name"`
		ToolID     string          `json:"tool_id"`
		Parameters json.RawMessage `json:"parameters"`
		Output     string          `json:"output"`
	}
	_ = json.Unmarshal(line, &e)
	if typ == "message" {
		if e.Role != "assistant" {
			return nil // the prompt, echoed
		}
		out := r.stream(e.Content)
		if !e.Delta {
			out = append(out, r.flushText()...)
		}
		return out
	}
	out := r.flushText()
	switch typ {
	case "init":
		if e.Model != "" {
			r.usage.Model = e.Model
			out = append(out, "• model "+Plain(oneLine(e.Model, 60)))
		}
	case "tool_use":
		r.rememberTool(e.ToolID, e.ToolName)
		out = append(out, toolLine(e.ToolName, toolTarget(e.Parameters)))
	case "tool_result":
		text, failed := e.Output, e.Status == "error"
		status := ""
		if failed {
			status = "error"
			if e.Error != nil && text == "" {
				text = e.Error.Message
			}
		}
		out = append(out, resultLine(status, text, failed))
	case "error":
		out = append(out, r.problem(e.Message)...)
	case "result":
		out = append(out, r.geminiResultRender(e.geminiEvent)...)
	}
	return out
}

// geminiResultRender shows the run's error, if any, and its tokens.
func (r *Renderer) geminiResultRender(e geminiEvent) []string {
	var out []string
	if e.Status == "error" && e.Error != nil {
		out = r.problem(geminiAPIError(e.Error.Message))
	}
	if s := e.Stats; s != nil {
		model := r.usage.Model
		if (model == "" || model == "auto") && len(s.Models) > 0 {
			model = strings.Join(slices.Sorted(maps.Keys(s.Models)), ",")
		}
		out = append(out, usageRendered(Usage{InputTokens: s.InputTokens, OutputTokens: s.output(),
			CacheReadTokens: s.Cached, CachedInInput: true, Model: model})...)
	}
	return out
}
