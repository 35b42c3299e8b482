package agentcli

import (
	"encoding/json"
	"fmt"
)

// opencodeRender renders one event of `opencode run --format json`. Tokens and cost come
// per step; the sum shows when a step ends the run (any reason but "tool-calls").
func (r *Renderer) opencodeRender(typ string, line []byte) []string {
	var base opencodeEvent // its part's tokens and cost
	_ = json.Unmarshal(line, &base)
	var e struct {
		Part struct {
			Text  string `json:"text"`
			Tool  string `json:"tool"`
			State struct {
				Status   string          `json:"status"`
				Input    json.RawMessage `json:"input"`
				Output   string          `json:"output"`
				Error    string          `json:"error"`
				Metadata struct {
					Exit *int `json:"exit"`
				} `json:"metadata"`
			} `json:"state"`
		} `json:"part"`
	}
	_ = json.Unmarshal(line, &e)
	switch typ {
	case "text":
		return r.words(e.Part.Text)
	case "reasoning":
		if t := oneLine(e.Part.Text, 160); t != "" {
			return []string{"(thinking) " + Plain(t)}
		}
	case "tool_use":
		s := e.Part.State
		out := []string{toolLine(e.Part.Tool, toolTarget(s.Input))}
		status, failed, text := "", s.Status == "error", s.Output
		if s.Metadata.Exit != nil {
			status, failed = fmt.Sprintf("exit %d", *s.Metadata.Exit), failed || *s.Metadata.Exit != 0
		}
		if s.Status == "error" {
			status, text = "error", s.Error
		}
		if text == "(no output)" {
			text = ""
		}
		return append(out, resultLine(status, text, failed))
	case "step_finish":
		return r.opencodeStepRender(base)
	case "error":
		msg := base.Error.Data.Message
		if msg == "" {
			msg = base.Error.Name
		}
		return r.problem(msg)
	}
	return nil
}

// opencodeStepRender adds a step's tokens and cost, and shows the sum at the run's end.
func (r *Renderer) opencodeStepRender(e opencodeEvent) []string {
	p, u := e.Part, &r.usage
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
	if p.Reason == "tool-calls" {
		return nil
	}
	return usageRendered(*u)
}
