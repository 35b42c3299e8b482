package agentcli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// piMessage is the part of a pi message (`pi -p --mode json`: message_end, turn_end)
// git-ralph reads: an assistant's text blocks (not its thinking or tool calls), its usage
// and cost, and how it stopped. A failed model call is an assistant message too, with
// stopReason "error" and the provider's words in errorMessage ("429 You exceeded your
// current quota…"); pi exits 0 all the same.
type piMessage struct {
	Role    string `json:"role"` // user, assistant, toolResult
	Content []struct {
		Type string `json:"type"` // text, thinking, toolCall
		Text string `json:"text"`
	} `json:"content"`
	Model string `json:"model"`
	Usage *struct {
		Input      int64 `json:"input"`
		Output     int64 `json:"output"`
		CacheRead  int64 `json:"cacheRead"`
		CacheWrite int64 `json:"cacheWrite"`
		Cost       *struct {
			Total float64 `json:"total"`
		} `json:"cost"`
	} `json:"usage"`
	StopReason   string `json:"stopReason"` // stop, toolUse, length, error, aborted
	ErrorMessage string `json:"errorMessage"`
}

// piEvent is the union of the fields git-ralph reads from pi's JSON events.
type piEvent struct {
	Message piMessage `json:"message"` // message_end
	// auto_retry_start: pi retries the prompt after a retryable error, after delayMs
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
	// auto_retry_end
	Success    *bool  `json:"success"`
	FinalError string `json:"finalError"`
}

// piState is what pi's earlier events leave for the run's end.
type piState struct {
	failed string // the error message of the latest assistant message, "" when it did not fail
}

// piEvent reads one event of `pi -p --mode json`. Each message comes whole in its
// message_end (message_update repeats it as it grows, turn_end and agent_end once more):
// only message_end is read, so nothing counts twice.
func (r *reading) piEvent(typ string, line []byte) {
	var e piEvent
	_ = json.Unmarshal(line, &e)
	switch typ {
	case "message_end":
		r.piMessage(e.Message)
	case "agent_end":
		r.piEnd()
	case "auto_retry_start":
		r.piRetry(e)
	}
}

// addUsage adds an assistant message's model and usage to u: the reader's report and
// the renderer's totals count them alike.
func (m piMessage) addUsage(u *Usage) {
	if m.Model != "" {
		u.Model = m.Model
	}
	if m.Usage != nil {
		u.InputTokens += m.Usage.Input
		u.OutputTokens += m.Usage.Output
		u.CacheReadTokens += m.Usage.CacheRead
		u.CacheWriteTokens += m.Usage.CacheWrite
		if m.Usage.Cost != nil {
			u.CostUSD += m.Usage.Cost.Total
			u.HasCost = true
		}
	}
}

// piMessage reads a finished assistant message: its words, its tokens and cost, and
// whether its model call failed.
func (r *reading) piMessage(m piMessage) {
	if m.Role != "assistant" {
		return // the prompt, echoed, and tool results
	}
	for _, c := range m.Content {
		if c.Type == "text" {
			r.say(c.Text)
		}
	}
	m.addUsage(&r.rep.Usage)
	r.pi.failed = ""
	if m.StopReason == "error" || m.StopReason == "aborted" {
		r.pi.failed = m.ErrorMessage
		if r.pi.failed == "" {
			r.pi.failed = "the model call ended: " + m.StopReason
		}
	}
}

// piEnd reads agent_end, the end of the prompt's run: a failed last message is how the
// run ended. pi may yet retry it (auto_retry_start follows), which takes that back.
func (r *reading) piEnd() {
	r.ended = true
	if r.pi.failed == "" {
		r.completed = true
		return
	}
	r.completed, r.rep.IsError = false, true
	if r.failedWith(r.pi.failed) == noKind {
		r.piStatus(r.pi.failed)
	}
}

// piStatus reads the HTTP status that leads a failed call's message, as the providers'
// SDKs word it ("500 The server had an error while processing your request…"), when the
// words themselves say nothing the text rules know.
func (r *reading) piStatus(msg string) {
	code, _, ok := strings.Cut(strings.TrimSpace(msg), " ")
	status, err := strconv.Atoi(code)
	switch {
	case !ok || err != nil:
	case status == 429:
		r.limit(msg, time.Time{}, false)
	case status == 401 || status == 403:
		r.fatal(msg)
	case status >= 500 && status <= 599:
		r.transient(msg)
	}
}

// piRetry reads auto_retry_start: pi runs the prompt again after an error it deems
// retryable (429, 5xx, overloaded; 3 times by default, 2 s doubling), so the failure just
// read is not how the run ended. Should the run end during the wait (a timeout), the
// notice is what it failed with.
func (r *reading) piRetry(e piEvent) {
	r.ended, r.completed, r.rep.IsError, r.resultErr = false, false, false, ""
	r.rep.Limit, r.rep.Fatal, r.rep.Transient, r.guessed = nil, "", "", false
	msg := strings.TrimSpace(e.ErrorMessage)
	r.retrying(fmt.Sprintf("%s (retrying: attempt %d of %d in %d ms)", msg, e.Attempt, e.MaxAttempts, e.DelayMs))
}
