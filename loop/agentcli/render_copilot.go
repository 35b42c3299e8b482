package agentcli

import (
	"encoding/json"
	"fmt"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// copilotRenderEvent is the union of the fields copilot's session events show.
type copilotRenderEvent struct {
	Data struct {
		Content    string          `json:"content"` // assistant.message, assistant.reasoning
		Model      string          `json:"model"`
		ToolCallID string          `json:"toolCallId"` // tool.execution_*
		ToolName   string          `json:"toolName"`   // tool.execution_start
		Arguments  json.RawMessage `json:"arguments"`  // tool.execution_start
		Success    *bool           `json:"success"`    // tool.execution_complete
		Shell      *struct {
			ExitCode *int `json:"exitCode"`
		} `json:"shellExecution"`
		Result *struct {
			Content string `json:"content"`
		} `json:"result"`
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"` // session.error, session.info, session.warning
		Reason  string          `json:"reason"`  // abort
	} `json:"data"`
	ExitCode *int `json:"exitCode"` // result
	Usage    *struct {
		PremiumRequests *float64 `json:"premiumRequests"`
	} `json:"usage"`
}

// copilotShellEnd is the line copilot's shell tool ends its output with.
var copilotShellEnd = lazyregexp.New(`\n?<shellId: \d+ completed with exit code \d+>\s*$`)

// copilotRender renders one event of `copilot --output-format json`; the deltas are left
// out, since the whole message follows them.
func (r *Renderer) copilotRender(typ string, line []byte) []string {
	var e copilotRenderEvent
	_ = json.Unmarshal(line, &e)
	d := e.Data
	switch typ {
	case "assistant.message":
		if d.Model != "" {
			r.usage.Model = d.Model
		}
		return r.words(d.Content)
	case "assistant.reasoning":
		if t := oneLine(d.Content, 160); t != "" {
			return []string{"(thinking) " + Plain(t)}
		}
	case "tool.execution_start":
		r.rememberTool(d.ToolCallID, d.ToolName)
		return []string{toolLine(d.ToolName, toolTarget(d.Arguments))}
	case "tool.execution_complete":
		return []string{copilotResult(e)}
	case "session.error", "session.warning", "session.info": // retries are session.info
		return r.problem(d.Message)
	case "abort":
		return r.problem("aborted: " + d.Reason)
	case "result":
		return r.copilotEnd(e)
	}
	return nil
}

// copilotResult is the line of a finished tool call.
func copilotResult(e copilotRenderEvent) string {
	d := e.Data
	text := ""
	if d.Result != nil {
		text = copilotShellEnd.ReplaceAllString(d.Result.Content, "")
	}
	failed := d.Success != nil && !*d.Success
	status := ""
	if d.Shell != nil && d.Shell.ExitCode != nil {
		status = fmt.Sprintf("exit %d", *d.Shell.ExitCode)
		failed = failed || *d.Shell.ExitCode != 0
	} else if failed {
		status = "error"
	}
	if failed && text == "" {
		text = jsonString(d.Error)
	}
	return resultLine(status, text, failed)
}

// copilotEnd shows the run's end: its exit code and premium requests (copilot reports
// no tokens).
func (r *Renderer) copilotEnd(e copilotRenderEvent) []string {
	line := "= "
	if e.ExitCode != nil {
		line += fmt.Sprintf("exit %d", *e.ExitCode)
	}
	if e.Usage != nil && e.Usage.PremiumRequests != nil {
		if line != "= " {
			line += " · "
		}
		line += fmt.Sprintf("premium requests: %g", *e.Usage.PremiumRequests)
	}
	if line == "= " {
		return nil
	}
	if r.usage.Model != "" {
		line += " · " + Plain(oneLine(r.usage.Model, 60))
	}
	return []string{line}
}
