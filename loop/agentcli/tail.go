package agentcli

import (
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// tailLines is how many of the last non-empty text lines are searched for a limit or an
// error (frankbria/ralph-claude-code#183 and its fix in PR #184).
const tailLines = 30

// ansi matches terminal escape sequences (colours, cursor moves), which would split the
// words the rules look for.
var ansi = lazyregexp.New(`\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)

// tail is the last n non-empty lines of lines, without escape sequences.
func tail(lines []string, n int) []string {
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		line := strings.TrimRight(ansi.ReplaceAllString(lines[i], ""), " \t\r")
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// textSignals are the latest messages, among the last lines of plain-text output or of
// stderr, that state a limit, a fatal error and a transient error.
type textSignals struct {
	limit, fatal, transient string
}

// findSignals reads lines message by message: a message is a line and the indented
// lines that continue it, which is how CLIs print an error's details:
//
//	Error: You've hit your usage limit
//	  Get Cursor Pro for more Agent usage, unlimited Tab, and more.
func findSignals(lines []string) textSignals {
	var s textSignals
	for _, msg := range messages(lines) {
		switch classify(msg) {
		case limitKind:
			s.limit = msg
		case fatalKind:
			s.fatal = msg
		case transientKind:
			s.transient = msg
		}
	}
	return s
}

// maxContinuation bounds how many indented lines one message takes.
const maxContinuation = 8

// messages groups lines into messages, each trimmed line on a line of its own.
func messages(lines []string) []string {
	var msgs []string
	for i := 0; i < len(lines); {
		msg := []string{strings.TrimSpace(lines[i])}
		j := i + 1
		for ; j < len(lines) && j <= i+maxContinuation && indented(lines[j]); j++ {
			msg = append(msg, strings.TrimSpace(lines[j]))
		}
		msgs = append(msgs, strings.Join(msg, "\n"))
		i = j
	}
	return msgs
}

// indented reports whether line continues the message above it. A JavaScript stack
// frame ("    at file:///…") does not: it is noise, not the message.
func indented(line string) bool {
	return line != "" && (line[0] == ' ' || line[0] == '\t') && !stackFrame.MatchString(line)
}

var stackFrame = lazyregexp.New(`^\s+at \S`)

// fromText records what the text lines say, where the structured events said nothing
// of the kind. A limit or a transient error counts only when failed: a run whose
// structured result says it completed was served, whatever it printed and recovered
// from on the way.
func (r *reading) fromText(lines []string, failed bool) {
	s := findSignals(tail(lines, tailLines))
	if s.fatal != "" {
		r.fatal(s.fatal)
	}
	if s.limit != "" && r.rep.Limit == nil && (failed || !r.rep.Structured) {
		r.limit(s.limit, time.Time{}, false)
	}
	if s.transient != "" && failed {
		r.transient(s.transient)
	}
}
