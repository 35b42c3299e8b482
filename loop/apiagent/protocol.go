package apiagent

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The protocols Request.Protocol names.
const (
	Anthropic = "anthropic" // the Anthropic Messages API, POST /v1/messages
	Responses = "responses" // the OpenAI Responses API, POST /v1/responses
	Chat      = "chat"      // the OpenAI Chat Completions API, POST /v1/chat/completions, and any server compatible with it
)

// Usage is the tokens a turn, or a whole iteration, consumed. The four counts are apart:
// Input excludes the cache reads and writes (for the OpenAI protocols, whose input counts
// the cached part too, Run subtracts it), so that a price table multiplies each by its
// own price and tokens are Input + Output as everywhere in git-ralph.
type Usage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_tokens"`
	CacheWrite int64 `json:"cache_write_tokens"`
}

func (u *Usage) add(v Usage) {
	u.Input += v.Input
	u.Output += v.Output
	u.CacheRead += v.CacheRead
	u.CacheWrite += v.CacheWrite
}

// context is the size of the conversation after the turn: what it was sent and what it said.
func (u Usage) context() int64 { return u.Input + u.CacheRead + u.CacheWrite + u.Output }

// toolSpec is a tool as the model is offered it.
type toolSpec struct {
	Name, Description string
	Schema            json.RawMessage // JSON Schema of its arguments
}

// toolCall is a tool call the model made. Input is its arguments as sent, which may not
// be JSON (a call cut at the output limit): the tool then says so.
type toolCall struct {
	ID, Name string
	Input    []byte
}

// toolResult is what a tool call gives back to the model.
type toolResult struct {
	Call    toolCall
	Output  string
	IsError bool
}

// reply is one turn of the model, read from its stream.
type reply struct {
	Text     string // the model's own words (never its thinking)
	Thinking string // its thinking or reasoning summary, logged only
	Calls    []toolCall
	Usage    Usage
	Stop     string // the vendor's stop reason
	// ContextFull is set when the model stopped because its context window was full
	// (Anthropic's model_context_window_exceeded).
	ContextFull bool
}

// protocol is one vendor's wire format: the conversation in its own shapes (so that what
// a vendor needs back verbatim, such as Anthropic's signed thinking or OpenAI's encrypted
// reasoning, goes back as it came), the request, and the reading of its stream.
type protocol interface {
	path() string // under the base URL, without /v1
	header(h http.Header, key string)
	// begin starts a fresh conversation: the system prompt, one user message, the tools.
	begin(system, prompt string, tools []toolSpec)
	// body is the next request's body.
	body(model string, maxOutput int) ([]byte, error)
	// read reads one streamed answer; on success the model's message joins the
	// conversation. An error is an *Error (the stream said so) or the reader's.
	read(s *sseReader) (reply, error)
	// answer adds the results of the last turn's tool calls, in order.
	answer(results []toolResult)
}

// downgrader is a protocol whose requests have an optional part that a server may
// refuse (see responses.downgrade).
type downgrader interface {
	downgrade(e *Error) bool
}

func newProtocol(name string) (protocol, bool) {
	switch name {
	case Anthropic:
		return &anthropic{}, true
	case Responses:
		return &responses{}, true
	case Chat:
		return &chat{}, true
	}
	return nil, false
}

// defaultBase is the vendor's own API when Request.BaseURL is empty.
func defaultBase(name string) string {
	if name == Anthropic {
		return "https://api.anthropic.com"
	}
	return "https://api.openai.com"
}

// endpoint joins the base URL and the protocol's path: "/v1" is added unless the base
// already ends with it (http://localhost:11434/v1, as compatible servers document theirs).
func endpoint(base, path string) string {
	base = strings.TrimRight(base, "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	return base + path
}

// errorEvent turns an error that a stream reported into an *Error.
func errorEvent(e apiError) *Error {
	return classify(0, nil, e, timeNow())
}
