package agentcli

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/loop/agentcli/resettime"
)

// reading is the state of one Read: what the output's lines have said so far.
type reading struct {
	output    []byte
	now       time.Time
	rep       Report
	said      []string // the agent's own words, in order
	other     []string // lines that are not JSON: stderr, banners, stack traces
	ended     bool     // a terminal event (a result, a failed turn) was seen
	completed bool     // a terminal event said the run finished without error
	notices   []notice // warnings and retry notices, which count only if the run never ended
	resultErr string   // the error message the run's terminal event carried, if any
	guessed   bool     // rep.Limit.Message was made up from a structured event, not the agent's words

	claude  claudeState // state kept between the events of each format
	gemini  geminiState
	copilot copilotState
	pi      piState
}

// newReading starts reading output, a run that ended at now.
func newReading(output []byte, now time.Time) *reading {
	return &reading{output: output, now: now}
}

// eventHandler reads one JSON line whose "type" is typ.
type eventHandler func(r *reading, typ string, line []byte)

// handlers read the events of each structured format.
var handlers = map[Format]eventHandler{
	ClaudeStream: (*reading).claudeEvent,
	CodexJSON:    (*reading).codexEvent,
	GeminiStream: (*reading).geminiEvent,
	OpencodeJSON: (*reading).opencodeEvent,
	CopilotJSON:  (*reading).copilotEvent,
	QwenStream:   (*reading).qwenEvent,
	PiJSON:       (*reading).piEvent,
	APIExchange:  (*reading).apiEvent,
}

// structured reads the output line by line, each event with handle. A line that is a JSON object is
// an event, whatever its content; any other line goes to r.other, where the text
// fallback may find a limit or an error in it (it is usually the CLI's stderr). A
// fragment of a JSON line (the first line of a truncated output) is neither: it may be
// the tail of a tool result, file contents that must never be searched
// (frankbria/ralph-claude-code#183).
func (r *reading) structured(handle eventHandler) {
	for line := range bytes.Lines(r.output) {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if trimmed[0] == '{' {
			var head struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(trimmed, &head) == nil {
				if head.Type != "" {
					r.rep.Structured = true
					handle(r, head.Type, trimmed)
				}
				continue
			}
		}
		if jsonFragment(trimmed) {
			continue
		}
		r.other = append(r.other, string(bytes.TrimRight(line, "\r\n")))
	}
}

// jsonFragment reports whether line looks like a piece of a JSON line rather than text.
func jsonFragment(line []byte) bool {
	if !bytes.Contains(line, []byte(`"`)) {
		return false
	}
	first, last := line[0], line[len(line)-1]
	return first == '{' || first == '[' || last == '}' || last == ']'
}

// say adds text to the agent's words.
func (r *reading) say(text string) {
	if strings.TrimSpace(text) != "" {
		r.said = append(r.said, text)
	}
}

// lastSaid is the agent's latest piece of text, "" before any.
func (r *reading) lastSaid() string {
	if len(r.said) == 0 {
		return ""
	}
	return r.said[len(r.said)-1]
}

// limit records a usage or rate limit stated by msg, resetting at at (zero: whatever
// msg says). A later call completes an earlier one: the agent's words replace a made-up
// message, and a reset time fills in a missing one.
func (r *reading) limit(msg string, at time.Time, guessed bool) {
	msg = strings.TrimSpace(msg)
	if at.IsZero() {
		at = resetIn(msg, r.now)
	}
	l := r.rep.Limit
	if l == nil {
		r.rep.Limit = &Limit{Message: msg, ResetAt: at, Permanent: permanent(msg)}
		r.guessed = guessed
		return
	}
	if r.guessed && !guessed && msg != "" {
		l.Message, r.guessed = msg, false
	}
	l.Permanent = l.Permanent || permanent(msg)
	if l.ResetAt.IsZero() {
		l.ResetAt = at
	}
}

// resetIn is the reset time msg states, zero when it states none.
func resetIn(msg string, now time.Time) time.Time {
	if at, ok := resettime.Parse(msg, now); ok {
		return at
	}
	if at, ok := epochField(msg); ok {
		return at
	}
	return time.Time{}
}

// fatal records msg as the fatal error, unless one is already recorded.
func (r *reading) fatal(msg string) {
	if r.rep.Fatal == "" {
		r.rep.Fatal = strings.TrimSpace(msg)
	}
}

// transient records msg as the transient error, unless one is already recorded.
func (r *reading) transient(msg string) {
	if r.rep.Transient == "" {
		r.rep.Transient = strings.TrimSpace(msg)
	}
}

// failedWith records msg as the error the run's terminal event ended with (claude's
// error result, codex's turn.failed, gemini's result error) and classifies it. That
// message is how the run ended: the text lines around the events (stack dumps on
// stderr) are then not searched.
func (r *reading) failedWith(msg string) kind {
	if strings.TrimSpace(msg) != "" && r.resultErr == "" {
		r.resultErr = strings.TrimSpace(msg)
	}
	return r.failure(msg)
}

// failure classifies msg, an error the agent reported in its structured output, and
// records it as a limit, a fatal or a transient error; it reports what it found.
func (r *reading) failure(msg string) kind {
	k := classify(msg)
	switch k {
	case limitKind:
		r.limit(msg, time.Time{}, false)
	case fatalKind:
		r.fatal(msg)
	case transientKind:
		r.transient(msg)
	}
	return k
}

// notice is a warning or a retry notice from the agent's structured output.
type notice struct {
	msg   string
	retry bool // the agent said it is retrying: a transient error whatever the words
}

// warning records an error the agent may recover from (a warning event, an error it goes
// on after). It counts only if the run never ended: see noticed.
func (r *reading) warning(msg string) {
	r.notices = append(r.notices, notice{msg: strings.TrimSpace(msg)})
}

// retrying records a notice that the agent is retrying (claude's api_retry, codex's
// "Reconnecting... 2/5"): not a failure by itself, but the reason the run failed if it
// never ended (killed by a timeout while still retrying, say).
func (r *reading) retrying(msg string) {
	r.notices = append(r.notices, notice{msg: strings.TrimSpace(msg), retry: true})
}

// noticed records what the notices say, for a run that never reached its end: a limit
// or fatal error they state, else the latest transient one.
func (r *reading) noticed() {
	if r.ended {
		return
	}
	var last string
	for _, n := range r.notices {
		switch classify(n.msg) {
		case limitKind:
			r.limit(n.msg, time.Time{}, false)
		case fatalKind:
			r.fatal(n.msg)
		case transientKind:
			last = n.msg
		default:
			if n.retry {
				last = n.msg
			}
		}
	}
	if last != "" {
		r.transient(last)
	}
}
