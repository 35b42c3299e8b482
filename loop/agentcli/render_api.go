package agentcli

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// apiRender renders one line of an API agent's exchange (loop/apiagent): the model's
// words, its thinking in brief, a line per tool call and one for its result, retries and
// the failure, and the iteration's tokens at its end. The system prompt and the user's
// prompt, which git-ralph wrote, are not shown: the model's part of the exchange is.
func (r *Renderer) apiRender(typ string, line []byte) []string {
	var e apiRecord
	if json.Unmarshal(line, &e) != nil {
		return nil
	}
	switch typ {
	case "start":
		r.usage.Model = e.Model
	case "thinking":
		if t := oneLine(e.Text, 160); t != "" {
			return []string{"(thinking) " + Plain(t)}
		}
	case "text":
		return r.words(e.Text)
	case "tool_call":
		r.rememberTool(e.ID, e.Name)
		return []string{toolLine(e.Name, apiTarget(e.Input))}
	case "tool_result":
		status := ""
		if e.IsError {
			status = "error"
		} else if e.Name == "bash" {
			status, _, _ = strings.Cut(e.Output, "\n") // "exit code 0"
		}
		return []string{resultLine(status, e.Output, e.IsError)}
	case "retry":
		wait := ""
		if d := (time.Duration(e.WaitMS) * time.Millisecond).Round(time.Second / 10); d > 0 {
			wait = ", in " + d.String()
		}
		return r.problem(fmt.Sprintf("%s (retrying: attempt %d%s)", e.Message, e.Attempt+1, wait))
	case "error":
		return r.problem(e.Kind + ": " + e.Message)
	case "end":
		if e.Usage == nil {
			return nil
		}
		u := e.Usage.usage(r.usage.Model)
		if e.CostUSD != nil && *e.CostUSD >= 0 && *e.CostUSD <= maxExchangeCost {
			u.CostUSD, u.HasCost = *e.CostUSD, true
		}
		return usageRendered(u)
	}
	return nil
}

// apiTarget is what a call works on: its input as JSON, or a string the model sent that
// was not JSON.
func apiTarget(input json.RawMessage) string {
	if t := toolTarget(input); t != "" {
		return t
	}
	var s string
	if json.Unmarshal(input, &s) == nil {
		return s
	}
	return ""
}
