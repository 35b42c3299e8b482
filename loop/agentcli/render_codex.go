package agentcli

import (
	"encoding/json"
	"fmt"
	"strings"
)

// codexItem is an item of `codex exec --json`: agent_message, reasoning,
// command_execution, file_change, mcp_tool_call, web_search, todo_list, error.
type codexItem struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	ItemType string `json:"item_type"` // older releases
	Text     string `json:"text"`
	Message  string `json:"message"`
	Command  string `json:"command"`
	Output   string `json:"aggregated_output"`
	ExitCode *int   `json:"exit_code"`
	Status   string `json:"status"`
	Changes  []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Query     string          `json:"query"`
	Error     json.RawMessage `json:"error"`
}

// codexRender renders one event of `codex exec --json`.
func (r *Renderer) codexRender(typ string, line []byte) []string {
	var e struct {
		codexEvent
		Item codexItem `json:"item"`
	}
	_ = json.Unmarshal(line, &e)
	if e.Item.Type == "" {
		e.Item.Type = e.Item.ItemType
	}
	switch typ {
	case "item.started":
		switch e.Item.Type {
		case "command_execution":
			r.rememberTool(e.Item.ID, "shell")
			return []string{toolLine("shell", codexCommand(e.Item.Command))}
		case "mcp_tool_call":
			r.rememberTool(e.Item.ID, e.Item.Tool)
			return []string{toolLine(e.Item.Server+"."+e.Item.Tool, toolTarget(e.Item.Arguments))}
		}
	case "item.completed":
		return r.codexItemDone(e.Item)
	case "turn.completed":
		if u := e.Usage; u != nil {
			return usageRendered(Usage{InputTokens: u.InputTokens, CacheReadTokens: u.CachedInput, OutputTokens: u.OutputTokens, CachedInInput: true})
		}
	case "turn.failed":
		return r.problem(e.Error.Message)
	case "error":
		return r.problem(e.Message)
	}
	return nil
}

// codexItemDone renders a finished item.
func (r *Renderer) codexItemDone(it codexItem) []string {
	switch it.Type {
	case "agent_message", "assistant_message":
		return r.words(it.Text)
	case "reasoning":
		if t := oneLine(it.Text, 160); t != "" {
			return []string{"(thinking) " + Plain(t)}
		}
	case "command_execution":
		var out []string
		if _, started := r.tools[it.ID]; !started || it.ID == "" {
			out = append(out, toolLine("shell", codexCommand(it.Command)))
		}
		status, failed := "", it.Status == "failed"
		if it.ExitCode != nil {
			status, failed = fmt.Sprintf("exit %d", *it.ExitCode), failed || *it.ExitCode != 0
		}
		return append(out, resultLine(status, it.Output, failed))
	case "file_change":
		paths := make([]string, 0, len(it.Changes))
		for _, c := range it.Changes {
			paths = append(paths, strings.TrimSpace(c.Kind+" "+c.Path))
		}
		return []string{toolLine("edit", strings.Join(paths, ", ")), "  ↳ " + Plain(oneLine(it.Status, 40))}
	case "mcp_tool_call":
		var out []string
		if _, started := r.tools[it.ID]; !started || it.ID == "" {
			out = append(out, toolLine(it.Server+"."+it.Tool, toolTarget(it.Arguments)))
		}
		if errText := jsonString(it.Error); errText != "" {
			return append(out, resultLine("error", errText, true))
		}
		return append(out, "  ↳ "+Plain(oneLine(it.Status, 40)))
	case "web_search":
		return []string{toolLine("web_search", it.Query)}
	case "error":
		return r.problem(it.Message)
	}
	return nil
}

// codexCommand is the command codex ran without the shell it wraps it in:
// `/bin/bash -lc "git status"` is `git status`.
func codexCommand(cmd string) string {
	for _, shell := range []string{"/bin/bash -lc ", "/bin/zsh -lc ", "bash -lc ", "/bin/sh -c "} {
		rest, ok := strings.CutPrefix(cmd, shell)
		if !ok {
			continue
		}
		if len(rest) >= 2 && rest[0] == '"' && rest[len(rest)-1] == '"' {
			rest = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\$`, `$`, "\\`", "`").Replace(rest[1 : len(rest)-1])
		} else if len(rest) >= 2 && rest[0] == '\'' && rest[len(rest)-1] == '\'' {
			rest = rest[1 : len(rest)-1]
		}
		return rest
	}
	return cmd
}
