package reporting

import (
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
)

// The JSON form of the loop's events, shared by `loop --json`, the event hooks' stdin
// and the structured log. docs/reference/events.md is the schema: a change here changes it.

// eventHeader opens every event object.
type eventHeader struct {
	Event string    `json:"event"`
	Time  time.Time `json:"time"`
	Run   string    `json:"run"`
}

type runStartedJSON struct {
	eventHeader
	Repo           string `json:"repo"`
	Mode           string `json:"mode"`
	MaxIterations  int    `json:"max_iterations"` // 0: unlimited
	Resumed        bool   `json:"resumed"`
	FirstIteration int    `json:"first_iteration"`
	Why            string `json:"why,omitempty"`
}

type iterationStartedJSON struct {
	eventHeader
	Iteration     int `json:"iteration"`
	MaxIterations int `json:"max_iterations"`
	Record        int `json:"record"`
}

type iterationFinishedJSON struct {
	eventHeader
	Iteration           int            `json:"iteration"`
	MaxIterations       int            `json:"max_iterations"`
	Outcome             loop.Outcome   `json:"outcome"`
	Reason              string         `json:"reason,omitempty"`
	Progress            bool           `json:"progress"`
	IdleIterations      int            `json:"idle_iterations"`
	ConsecutiveFailures int            `json:"consecutive_failures"`
	OutputBytes         int64          `json:"output_bytes"`
	Record              history.Record `json:"record"`
	Note                string         `json:"note,omitempty"`
}

type waitingJSON struct {
	eventHeader
	Iteration int       `json:"iteration"`
	Kind      string    `json:"kind"` // "limit" or "transient"
	Message   string    `json:"message"`
	WaitUntil time.Time `json:"wait_until"`
	Attempt   int       `json:"attempt"`
	Resumed   bool      `json:"resumed"`
	From      string    `json:"from,omitempty"` // the work tree of the loop that shared the limit
}

type validationFailedJSON struct {
	eventHeader
	Iteration  int    `json:"iteration"`
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	TimedOut   bool   `json:"timed_out"`
	DurationMS int64  `json:"duration_ms"`
	Output     string `json:"output"` // the end of its output, as the next prompt gets it
}

type judgedJSON struct {
	eventHeader
	Iteration    int     `json:"iteration"`
	Judge        string  `json:"judge"`
	Verdict      string  `json:"verdict"` // "PASS", "FAIL", or "error": no verdict, error says why
	Reasons      string  `json:"reasons,omitempty"`
	Error        string  `json:"error,omitempty"`
	DurationMS   int64   `json:"duration_ms"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

type pushedJSON struct {
	eventHeader
	Iteration int    `json:"iteration"`
	Target    string `json:"target"`
	Commit    string `json:"commit"`
	OK        bool   `json:"ok"`
	Error     string `json:"error,omitempty"`
}

type pausedJSON struct {
	eventHeader
	Iteration int       `json:"iteration"`         // the iteration that waits to start (or to run again)
	Retry     bool      `json:"retry"`             // paused within the iteration, before running it again after a wait
	AskedAt   time.Time `json:"asked_at,omitzero"` // when 'git ralph pause' asked
}

type resumedJSON struct {
	eventHeader
	Iteration int   `json:"iteration"`
	PausedMS  int64 `json:"paused_ms"`
}

type warningJSON struct {
	eventHeader
	Message string `json:"message"`
}

type runFinishedJSON struct {
	eventHeader
	Status              loop.Status    `json:"status"`
	Cause               string         `json:"cause"`
	ExitCode            int            `json:"exit_code"`
	Reason              string         `json:"reason,omitempty"`
	Hint                string         `json:"hint,omitempty"`   // what to do about a limited or fatal stop
	Record              int            `json:"record,omitempty"` // the history number of the iteration that stopped it
	Iterations          int            `json:"iterations"`
	LastIteration       int            `json:"last_iteration"`
	ConsecutiveFailures int            `json:"consecutive_failures"`
	IdleIterations      int            `json:"idle_iterations"`
	Cancelled           bool           `json:"cancelled"`
	ElapsedMS           int64          `json:"elapsed_ms"`
	Statistics          statisticsJSON `json:"statistics"`
	SpentUSD            float64        `json:"spent_usd"`    // the run's spend as its agent reported it, every attempt counted
	SpentTokens         int64          `json:"spent_tokens"` // the run's input + output tokens
	// SpentUncosted counts the attempts that reported tokens but no cost: spent_usd
	// leaves them out (a lower bound, or no figure at all when it is 0).
	SpentUncosted int `json:"spent_uncosted,omitempty"`
}

// statisticsJSON is the run's iteration timing, in milliseconds.
type statisticsJSON struct {
	Count    int   `json:"count"`
	MinMS    int64 `json:"min_ms"`
	MaxMS    int64 `json:"max_ms"`
	MeanMS   int64 `json:"mean_ms"`
	StddevMS int64 `json:"stddev_ms"`
}

// EventEncoder turns loop events into their JSON objects, stamping each with the run
// it belongs to.
type EventEncoder struct {
	repo string
	run  string
	now  func() time.Time
}

// NewEventEncoder encodes the events of a loop in the repository at root.
func NewEventEncoder(root string) *EventEncoder {
	return &EventEncoder{repo: root, now: time.Now}
}

// Encode returns the event's name and JSON object; ok is false for events that are not
// part of the stream (the agent being signalled, truncated output: progress lines and
// the log carry those).
func (c *EventEncoder) Encode(e loop.Event) (name string, obj any, ok bool) {
	if s, isStart := e.(loop.RunStarted); isStart {
		c.run = s.Run
	}
	h := func(name string, at time.Time) eventHeader {
		if at.IsZero() {
			at = c.now()
		}
		return eventHeader{Event: name, Time: at.UTC(), Run: c.run}
	}
	switch e := e.(type) {
	case loop.RunStarted:
		return "run_started", runStartedJSON{h("run_started", e.At), c.repo, e.Mode, e.Max, e.Resumed, e.First, e.Why}, true
	case loop.IterationStarted:
		return "iteration_started", iterationStartedJSON{h("iteration_started", e.At), e.Iteration, e.Max, e.Record}, true
	case loop.IterationFinished:
		return "iteration_finished", iterationFinishedJSON{h("iteration_finished", e.At), e.Iteration, e.Max, e.Outcome,
			e.Reason, e.Progress, e.Idle, e.Consecutive, e.OutputBytes, e.Record, e.Note}, true
	case loop.Waiting:
		return "waiting", waitingJSON{h("waiting", time.Time{}), e.Iteration, e.Kind, e.Message, e.Until.UTC(), e.Attempt, e.Resumed, e.From}, true
	case loop.BaselineTaken:
		return "baseline", newBaselineJSON(h("baseline", time.Time{}), e), true
	case loop.ValidationFailed:
		v := e.Validation
		return "validation_failed", validationFailedJSON{h("validation_failed", time.Time{}), e.Iteration, v.Command,
			v.ExitCode, v.TimedOut, v.Duration.Milliseconds(), v.Tail}, true
	case loop.UntilFailed:
		u := e.Until
		return "until_failed", validationFailedJSON{h("until_failed", time.Time{}), e.Iteration, u.Command,
			u.ExitCode, u.TimedOut, u.Duration.Milliseconds(), u.Tail}, true
	case loop.Judged:
		rec := e.Judgement.Record()
		if rec == nil { // interrupted: no verdict to speak of
			return "", nil, false
		}
		return "judged", judgedJSON{h("judged", time.Time{}), e.Iteration, rec.Judge, rec.Verdict, rec.Reasons, rec.Error,
			rec.DurationMS, rec.InputTokens, rec.OutputTokens, rec.CostUSD}, true
	case loop.Pushed:
		p := pushedJSON{eventHeader: h("pushed", time.Time{}), Iteration: e.Iteration, Target: e.Target, Commit: e.Commit, OK: e.Err == nil}
		if e.Err != nil {
			p.Error = e.Err.Error()
		}
		return "pushed", p, true
	case loop.Paused:
		return "paused", pausedJSON{h("paused", e.At), e.Iteration, e.Retry, e.Asked.UTC()}, true
	case loop.Resumed:
		return "resumed", resumedJSON{h("resumed", e.At), e.Iteration, e.Paused.Milliseconds()}, true
	case loop.Warning:
		return "warning", warningJSON{h("warning", time.Time{}), e.Message}, true
	case loop.RunFinished:
		return "run_finished", c.runFinished(h("run_finished", e.At), e.Result), true
	}
	return "", nil, false
}

func (c *EventEncoder) runFinished(h eventHeader, r loop.Result) runFinishedJSON {
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	return runFinishedJSON{
		eventHeader: h, Status: r.Status, Cause: r.StopCause(), ExitCode: r.Status.ExitCode(), Reason: r.Reason, Hint: r.Hint, Record: r.Record,
		Iterations: r.Iterations, LastIteration: r.Last, ConsecutiveFailures: r.Consecutive,
		IdleIterations: r.Idle, Cancelled: r.Cancelled, ElapsedMS: ms(r.Elapsed),
		Statistics: statisticsJSON{Count: r.Stats.Count, MinMS: ms(r.Stats.Min), MaxMS: ms(r.Stats.Max),
			MeanMS: ms(r.Stats.Mean()), StddevMS: ms(r.Stats.Stddev())},
		SpentUSD: r.SpentUSD, SpentTokens: r.SpentTokens, SpentUncosted: r.SpentUncosted,
	}
}
