package agentcli

// Format is how an agent's output is read.
type Format int

const (
	// Text is plain text: the whole output is the agent's words, and limits and errors
	// are found in its last lines only.
	Text Format = iota
	// ClaudeStream is Claude Code's `--output-format stream-json`: system, assistant,
	// user, rate_limit_event and result events. Amp's --stream-json has the same shape and
	// cursor-agent's stream-json a close one.
	ClaudeStream
	// CodexJSON is `codex exec --json`: thread.*, turn.*, item.* and error events.
	CodexJSON
	// GeminiStream is `gemini --output-format stream-json`: init, message, tool_use,
	// tool_result, error and result events.
	GeminiStream
	// OpencodeJSON is `opencode run --format json`: step_start, text, tool_use,
	// step_finish and error events, each with a part.
	OpencodeJSON
	// CopilotJSON is `copilot --output-format json`: the session's events
	// (assistant.message, session.error, …) and a final result.
	CopilotJSON
	// QwenStream is qwen-code's `--output-format stream-json`: Claude Code's shape, with an
	// error result whose error is an object and retry notices of its own.
	QwenStream
	// PiJSON is `pi -p --mode json`: session, agent_*, turn_*, message_* (each message whole
	// in message_end), tool_execution_* and auto_retry_* events.
	PiJSON
	// APIExchange is the exchange of an in-process API agent (loop/apiagent): one record
	// per line (start, text, tool_call, tool_result, usage, retry, error, end).
	APIExchange
)

// String names the format as the docs and --dry-run do.
func (f Format) String() string {
	switch f {
	case ClaudeStream:
		return "claude-stream-json"
	case CodexJSON:
		return "codex-json"
	case GeminiStream:
		return "gemini-stream-json"
	case OpencodeJSON:
		return "opencode-json"
	case CopilotJSON:
		return "copilot-json"
	case QwenStream:
		return "qwen-stream-json"
	case PiJSON:
		return "pi-json"
	case APIExchange:
		return "api-exchange"
	}
	return "text"
}
