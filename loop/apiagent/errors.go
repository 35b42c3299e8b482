package apiagent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// Kind is the class of an iteration's failure, as the loop acts on it. Limit, Transient and
// Fatal are the classes loop/agentcli gives a CLI agent's failures (Result.Report maps
// them), so that the loop treats both kinds of agent alike.
type Kind int

const (
	// Transient: the server was overloaded (529, 503), failed (5xx) or the connection
	// dropped, and the retries inside Run did not get through.
	Transient Kind = iota + 1
	// Limit: a usage or rate limit (429, a quota, no credits); Error.ResetAt says when it
	// resets when the server said, Error.Permanent that waiting will not clear it soon.
	Limit
	// Fatal: retrying cannot help: a refused key (401, 403), an unknown model, a request
	// the server refuses, a misconfigured Request.
	Fatal
	// ContextFull: the conversation outgrew Request.MaxContext, or the server said it
	// outgrew the model's context window. Nothing is ever cut silently.
	ContextFull
	// Timeout: the server sent nothing for Request.IdleTimeout.
	Timeout
	// TooManyTurns: the model was still calling tools after Request.MaxTurns turns.
	TooManyTurns
	// Interrupted: the context was cancelled.
	Interrupted
)

var kindNames = map[Kind]string{
	Transient: "transient", Limit: "limit", Fatal: "fatal", ContextFull: "context_full",
	Timeout: "timeout", TooManyTurns: "max_turns", Interrupted: "interrupted",
}

// String is the kind's name as the exchange's JSON lines spell it.
func (k Kind) String() string {
	if name, ok := kindNames[k]; ok {
		return name
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is why an iteration of an API agent failed.
type Error struct {
	Kind      Kind
	Status    int       // the HTTP status, 0 when the failure was not an HTTP answer
	Message   string    // the server's words, or ours; never the key
	ResetAt   time.Time // Limit: when it resets, zero when the server did not say
	Permanent bool      // Limit: a quota, a spend cap or no credits, which waiting will not clear soon
	// RetryAfter is how long the server asked to wait before the next request (a
	// Transient error's retry-after), zero when it did not say.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	if !e.ResetAt.IsZero() {
		fmt.Fprintf(&b, " (resets at %s)", e.ResetAt.UTC().Format(time.RFC3339))
	}
	return b.String()
}

// retryable reports whether Run tries the request again after e.
func (e *Error) retryable() bool { return e.Kind == Transient }

// apiError is what a vendor's error body says: Anthropic's {"type":"error","error":{"type",
// "message"}}, OpenAI's {"error":{"message","type","code"}}, a stream's error event with
// the fields at the top, or a compatible server's {"error":"text"}.
type apiError struct {
	Type, Code, Message string
}

// parseAPIError reads an error body; a body it cannot read is kept as the message.
func parseAPIError(body []byte) apiError {
	var top struct {
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &top) != nil {
		return apiError{Message: strings.TrimSpace(string(body))}
	}
	if top.Type == "error" {
		top.Type = "" // the event's type (the Responses API's error event), not the error's
	}
	e := apiError{Type: top.Type, Code: rawString(top.Code), Message: top.Message}
	var inner struct {
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	var text string
	switch {
	case json.Unmarshal(top.Error, &inner) == nil && (inner.Message != "" || inner.Type != ""):
		e = apiError{Type: inner.Type, Code: rawString(inner.Code), Message: inner.Message}
	case json.Unmarshal(top.Error, &text) == nil && text != "":
		e.Message = text
	}
	if e.Message == "" && e.Type == "" && e.Code == "" {
		e.Message = strings.TrimSpace(string(body))
	}
	return e
}

// rawString is a JSON string's value, or a number's text (llama.cpp's "code": 400).
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) > 0 && raw[0] >= '0' && raw[0] <= '9' {
		return string(raw)
	}
	return ""
}

// The vendors' words for a conversation longer than the model's window: Anthropic's
// "prompt is too long: 201234 tokens > 200000 maximum", OpenAI's and vLLM's "maximum
// context length is", llama.cpp's "exceeds the available context size", and others'.
var contextWords = lazyregexp.New(`(?i)prompt is too long|maximum context length|context[ _-]length[ _-]exceeded|exceeds? the (?:available )?context (?:size|window|length)|context window (?:is )?exceeded|exceed context limit|too many tokens in the (?:prompt|input)|input is too long`)

// The words of a limit that waiting will not clear soon; OpenAI's "Request too large for
// gpt-4o … on tokens per min (TPM)" is a request larger than the key's whole per-minute
// budget, which no wait lets through.
var permanentWords = lazyregexp.New(`(?i)insufficient_quota|exceeded your current quota|credit balance is too low|billing|spend(?:ing)? (?:limit|cap)|monthly|(?:no|insufficient|out of) credits|payment required|request too large for .* per min`)

// classify turns a vendor's error into an Error: status is the HTTP status (0 for an error
// event inside a stream, whose words alone decide), h the answer's headers (nil inside a
// stream), now the time the answer came.
func classify(status int, h http.Header, e apiError, now time.Time) *Error {
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(e.Type + " " + e.Code)
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	err := &Error{Kind: kindOf(status, e), Status: status, Message: msg}
	switch err.Kind {
	case Limit:
		err.ResetAt = resetAt(h, now)
		err.Permanent = status == http.StatusPaymentRequired || permanentWords.MatchString(e.Type+" "+e.Code+" "+e.Message)
	case Transient:
		if at := retryAfter(h, now); !at.IsZero() {
			err.RetryAfter = at.Sub(now)
		}
	}
	return err
}

// kindOf is the class of an error from its status and its vendor's type and code.
func kindOf(status int, e apiError) Kind {
	words := e.Type + " " + e.Code + " " + e.Message
	switch {
	case contextWords.MatchString(words) || e.Type == "exceed_context_size_error" || e.Type == "request_too_large" || status == http.StatusRequestEntityTooLarge:
		return ContextFull
	case status == http.StatusTooManyRequests || status == http.StatusPaymentRequired ||
		e.Type == "rate_limit_error" || e.Code == "rate_limit_exceeded" || permanentWords.MatchString(words):
		return Limit
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		e.Type == "authentication_error" || e.Type == "permission_error" || e.Code == "invalid_api_key":
		return Fatal
	case status >= 500 || status == 529 || status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooEarly || e.Type == "overloaded_error" || e.Type == "api_error" ||
		e.Type == "server_error" || e.Code == "server_error" || e.Code == "server_is_overloaded":
		return Transient
	case status == 0 && e.Type == "" && e.Code == "":
		return Transient // a stream's error without a name: the server broke off
	}
	return Fatal
}
