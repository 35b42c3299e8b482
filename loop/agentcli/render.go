package agentcli

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/units"
)

// Renderer turns an agent's raw output, one line at a time as it arrives, into lines a
// person reads: the agent's own text, one line per tool call (the tool and its target)
// with one beneath it for its result (its size or exit status, never its content),
// errors and retries, and the tokens and cost at the end — instead of a preset's JSON.
// It is independent of where the lines come from: the live --verbose stream, or the
// output log a view reads back (.ralph/history/N/output.log).
//
// Every rendered line is plain, single-line text that is safe on a terminal: the
// agent's control characters, escape sequences and invalid bytes are spelled out
// (\x1b, \r, \u202e), never passed on. A line that is not an event of the format (the
// CLI's stderr, a banner, a line cut short, malformed JSON) is shown as it is, made
// safe the same way. A Renderer is not safe for concurrent use.
type Renderer struct {
	handle renderHandler // nil: plain text, passed through
	said   bool          // the agent's own text was shown
	text   strings.Builder
	tools  map[string]string // a call's id → its tool: the calls whose start was shown
	usage  Usage             // the model, and tokens summed over steps (opencode)

	lastProblem string // the last error shown: not shown again until another one is

	claudeMsgs map[string]claudeUsage // assistant usage by message id, for results without any (amp)
}

// renderHandler renders one event of a format, whose "type" is typ.
type renderHandler func(r *Renderer, typ string, line []byte) []string

// renderers render the events of each structured format.
var renderers = map[Format]renderHandler{
	ClaudeStream: (*Renderer).claudeRender,
	CodexJSON:    (*Renderer).codexRender,
	GeminiStream: (*Renderer).geminiRender,
	OpencodeJSON: (*Renderer).opencodeRender,
	CopilotJSON:  (*Renderer).copilotRender,
	QwenStream:   (*Renderer).claudeRender, // Claude Code's shape
	PiJSON:       (*Renderer).piRender,
	APIExchange:  (*Renderer).apiRender,
}

// NewRenderer renders output of format f. For Text (and any format without events) it
// passes every line through, made safe.
func NewRenderer(f Format) *Renderer {
	return &Renderer{handle: renderers[f], tools: map[string]string{}, claudeMsgs: map[string]claudeUsage{}}
}

// Line renders one complete raw line (with or without its line break) into zero or more
// lines, without line breaks.
func (r *Renderer) Line(raw []byte) []string {
	raw = bytes.TrimRight(raw, "\r\n")
	if r.handle == nil {
		return []string{Plain(string(raw))}
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil
	}
	if trimmed[0] == '{' {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(trimmed, &head) == nil && head.Type != "" {
			return r.handle(r, head.Type, trimmed)
		}
	}
	return append(r.flushText(), Plain(cutRaw(raw)))
}

// maxRawLine is how much of a line that is not an event is shown: such lines are the
// CLI's own (warnings, stack traces), short; a long one is a piece of an event cut short,
// often a tool's output, whose content is not shown.
const maxRawLine = 1000

// cutRaw is raw, or its beginning and the size of the rest when it is long.
func cutRaw(raw []byte) string {
	if len(raw) <= maxRawLine {
		return string(raw)
	}
	head := raw[:maxRawLine/2]
	for len(head) > 0 && !utf8.Valid(head) { // not in the middle of a character
		head = head[:len(head)-1]
	}
	return string(head) + " … [" + units.Size(int64(len(raw)-len(head))) + " more]"
}

// End renders what the renderer still holds at the end of the stream: the agent's
// text that had no line break yet.
func (r *Renderer) End() []string { return r.flushText() }

// words renders a piece of the agent's own text: one line per line of it, without the
// blank lines around it.
func (r *Renderer) words(text string) []string {
	text = strings.Trim(text, "\r\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	r.said = true
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = Plain(strings.TrimRight(l, "\r"))
	}
	return lines
}

// stream adds a chunk of the agent's text (gemini's deltas) and renders the lines it
// completes; the rest waits for the next chunk or flushText.
// Only the chunk is searched for a line break: searching all that is held, chunk after
// chunk, is quadratic in a long line.
func (r *Renderer) stream(chunk string) []string {
	cut := strings.LastIndexByte(chunk, '\n')
	if cut < 0 {
		r.text.WriteString(chunk)
		return nil
	}
	r.text.WriteString(chunk[:cut])
	s := r.text.String()
	r.text.Reset()
	r.text.WriteString(chunk[cut+1:])
	return r.words(s)
}

// flushText renders the agent's text still held back.
func (r *Renderer) flushText() []string {
	s := r.text.String()
	r.text.Reset()
	return r.words(s)
}

// toolLine is the line of a tool call: "▸ Bash  go test ./...".
func toolLine(tool, target string) string {
	tool = Plain(oneLine(tool, 40))
	if tool == "" {
		tool = "tool"
	}
	if target == "" {
		return "▸ " + tool
	}
	return "▸ " + tool + "  " + Plain(oneLine(target, 160))
}

// resultLine is the line of a tool call's result: "  ↳ exit 1 · 12 lines, 1.2 KiB";
// failed calls add the first line of what they said.
func resultLine(status string, output string, failed bool) string {
	parts := []string{}
	if status != "" {
		parts = append(parts, status)
	}
	parts = append(parts, sizeOf(output))
	line := "  ↳ " + strings.Join(parts, " · ")
	if failed {
		if first := oneLine(output, 120); first != "" {
			line += ": " + Plain(first)
		}
	}
	return line
}

// problem is how an error, a warning or a retry notice shows: "! API Error: 500 …". The
// CLIs say the same error more than once (codex's error event, then its failed turn;
// claude's message, then its result): it shows once.
func (r *Renderer) problem(msg string) []string {
	msg = strings.TrimSpace(msg)
	if msg == "" || msg == r.lastProblem {
		return nil
	}
	r.lastProblem = msg
	return []string{"! " + Plain(oneLine(msg, 300))}
}

// rememberTool notes that a call's start was shown, so that its end shows only its result.
func (r *Renderer) rememberTool(id, tool string) {
	if id != "" && len(r.tools) < 10000 {
		r.tools[id] = tool
	}
}

// toolTarget is what a tool call works on, from its input: the command, the file, the
// pattern or the address, else its first string value.
func toolTarget(input json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(input, &fields) != nil {
		return ""
	}
	for _, key := range []string{"command", "cmd", "file_path", "filePath", "absolute_path", "path", "pattern",
		"url", "query", "description", "prompt"} {
		if s, ok := fields[key].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	keys := slices.Sorted(maps.Keys(fields))
	for _, k := range keys {
		if s, ok := fields[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
