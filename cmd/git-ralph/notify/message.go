package notify

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
)

// The events a notification is sent for: the "event" field of the webhook body.
const (
	EventRunFinished = "run_finished"       // a run ended, for whatever reason (its status and cause say which)
	EventRunFailed   = "run_failed"         // the loop failed before its run started (a state it cannot read or save)
	EventMergeReview = "merge_needs_review" // the merge queue left the base branch alone: a person must look
	// EventApproval: a workflow's stage waits for a person's approval ('git ralph
	// workflow run' sends ApprovalNeeded as it stops with exit code 7).
	EventApproval = "approval_needed"
)

// Message is one notification: what the desktop shows (Title, Message) and the body
// a webhook receives (docs/reference/events.md, "Notifications"). It carries no prompt, diff or
// agent output, and names the repository by its directory name only — the loop's name
// and the run's end in a few words (a reason may name a file) — since a webhook may be a
// public service such as ntfy.sh.
type Message struct {
	Source     string    `json:"source"` // always "git-ralph"
	Event      string    `json:"event"`
	Title      string    `json:"title"`
	Message    string    `json:"message"`
	Text       string    `json:"text"` // Title and Message in one, for Slack-compatible webhooks
	Repository string    `json:"repository"`
	Loop       string    `json:"loop,omitempty"` // a worktree loop's NAME; "" for the main work tree
	Run        string    `json:"run,omitempty"`
	Status     string    `json:"status,omitempty"`
	Cause      string    `json:"cause,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	ExitCode   *int      `json:"exit_code,omitempty"`
	Iterations int       `json:"iterations,omitempty"`
	At         time.Time `json:"at"`
}

// Where names the loop a message is about.
type Where struct {
	Repository string // the main work tree's directory name
	Loop       string // a worktree loop's name, or ""
}

func (w Where) String() string {
	if w.Loop == "" {
		return w.Repository
	}
	return w.Repository + " (loop " + w.Loop + ")"
}

// reasonMax bounds the reason a message carries: a notification is a line, not a log.
const reasonMax = 300

// RunFinished is the message for a run's end, saying why it ended.
func RunFinished(w Where, r loop.Result, at time.Time) Message {
	code := r.Status.ExitCode()
	reason := shorten(r.Reason)
	m := Message{Event: EventRunFinished, Run: r.Run, Status: string(r.Status), Cause: r.StopCause(), Reason: reason,
		ExitCode: &code, Iterations: r.Iterations, At: at}
	headline := headlines[r.Status]
	switch {
	case r.Status == loop.StatusInterrupted && r.Cancelled:
		headline = "was cancelled"
	case r.Status == loop.StatusAborted && r.StopCause() != "consecutive_errors":
		headline = "stopped on an error"
	case r.Cause == loop.CauseUntil:
		headline = "finished: the promise command passed"
	}
	if headline == "" {
		headline = "ended: " + string(r.Status)
	}
	body := fmt.Sprintf("%s in %s, exit code %d.", display.Plural(r.Iterations, "iteration"), display.Duration(r.Elapsed), code)
	if reason != "" {
		body = reason + ". " + body
	}
	return m.with(w, "loop "+headline, body)
}

// headlines say how a run ended, after "loop ".
var headlines = map[loop.Status]string{
	loop.StatusSuccess:     "finished: the agent signalled SUCCESS",
	loop.StatusMaxIters:    "stopped at its iteration limit",
	loop.StatusIdle:        "stopped: iterations changed nothing in git",
	loop.StatusAborted:     "aborted after failures in a row",
	loop.StatusInterrupted: "was interrupted",
	loop.StatusLimited:     "stopped on a usage limit",
	loop.StatusFatal:       "stopped: the agent cannot run",
	loop.StatusBudget:      "stopped: its budget is spent",
	loop.StatusStagnant:    "stopped: the same attempt repeated",
}

// RunFailed is the message for a loop that failed before its run started.
func RunFailed(w Where, err error, at time.Time) Message {
	code := 1
	reason := shorten(err.Error())
	m := Message{Event: EventRunFailed, Status: "error", Cause: "error", Reason: reason, ExitCode: &code, At: at}
	return m.with(w, "loop failed", reason+".")
}

// MergeReview is the message for a merge the queue refused: problem is "conflict" or
// "validation", detail says what (the conflicting files, the validate command).
func MergeReview(w Where, branch, base, problem, detail string, code int, at time.Time) Message {
	reason := shorten(detail)
	m := Message{Event: EventMergeReview, Status: "needs-review", Cause: problem, Reason: reason, ExitCode: &code, At: at}
	what := map[string]string{"conflict": "conflicts with", "validation": "fails validation merged into"}[problem]
	if what == "" {
		what = "could not be merged into"
	}
	return m.with(w, "merge needs review", fmt.Sprintf("%s %s %s (%s); %s was left as it was.", branch, what, base, reason, base))
}

// ApprovalNeeded is the message for a workflow stage that waits for a person; stage
// names it ("plan of workflow ship").
func ApprovalNeeded(w Where, stage string, at time.Time) Message {
	m := Message{Event: EventApproval, Status: "waiting", Cause: "approval", At: at}
	return m.with(w, "waits for approval", fmt.Sprintf("The stage %s waits for your approval.", shorten(stage)))
}

// with fills in what every message has: the source, the loop, the title and the text.
func (m Message) with(w Where, headline, body string) Message {
	m.Source, m.Repository, m.Loop = "git-ralph", w.Repository, w.Loop
	m.Title = "git-ralph: " + w.String() + " " + headline
	m.Message = body
	m.Text = m.Title + "\n" + m.Message
	return m
}

// shorten makes a reason fit a notification: secrets replaced, one line, terminal-safe,
// at most reasonMax bytes.
func shorten(s string) string {
	s = strings.Join(strings.Fields(redact.String(s)), " ")
	s = display.Printable(s)
	if len(s) > reasonMax {
		cut := reasonMax
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.TrimSuffix(s, ".")
}
