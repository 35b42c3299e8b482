package loop

import (
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/testreport"
)

// Reporter receives the loop's events; the command line turns them into progress lines,
// JSON or log records. The loop itself never prints.
type Reporter interface {
	Report(Event)
}

// Event is one of the types below.
type Event interface{ event() }

// RunStarted opens a run, new or resumed.
type RunStarted struct {
	Run     string
	Mode    string
	Max     int // 0: unlimited
	At      time.Time
	Resumed bool
	First   int    // the first iteration this invocation runs
	Why     string // why it resumed or started anew; "" for a first run
}

// Warning is something the user should know that does not stop the run.
type Warning struct {
	Message string
}

// IterationStarted is sent before the agent starts.
type IterationStarted struct {
	Iteration int // 1-based, within the run
	Max       int
	At        time.Time
	Record    int // the iteration's number in the repository's history
	Prompt    PromptInfo
}

// PromptInfo says what the iteration's prompt was made of, for the log's debug records:
// sizes and sources, never the text (the history keeps that, redacted and bounded).
type PromptInfo struct {
	Bytes    int
	Sections []PromptPart
	Kept     string // where the history keeps it, relative to the repository; "" if it could not
	Cut      int    // bytes of it the kept file leaves out (history.PromptLimit)
}

// PromptPart is one section of a prompt: its heading ("" for the prompt file itself),
// where it came from (a file, --context, git ralph inject, the feedback) and its size.
type PromptPart struct {
	Title  string
	Source string
	Bytes  int
}

// AgentStopping is sent when the agent's process group is sent a signal.
type AgentStopping struct {
	Iteration int
	Signal    syscall.Signal
	Why       string // one of agent.WhyTimeout, WhySilent, WhyInterrupt, WhyLeftover, WhyEscaped
}

// OutputTruncated warns that the agent printed more than the output buffer keeps.
type OutputTruncated struct {
	Iteration int
	Total     int64
	Kept      int
}

// IterationFinished is sent when the agent and all it started are gone.
type IterationFinished struct {
	Iteration     int
	Max           int
	At            time.Time
	Duration      time.Duration
	Outcome       Outcome
	Reason        string // why it failed, in words; "" for a clean success
	Promise       Promise
	ExitCode      int
	Signal        syscall.Signal
	TimedOut      bool
	Consecutive   int // consecutive failures after this iteration
	Threshold     int
	OutputBytes   int64
	Survivors     bool // a process of the agent's group outlived SIGKILL
	Record        history.Record
	Progress      bool // HEAD moved or the working tree changed
	Idle          int  // iterations in a row without progress
	IdleThreshold int
	Validation    Validation // Ran is false when no validate command is configured
	Until         Validation // the promise command (--until); Ran is false when none is set or it did not run
	Push          string     // "pushed to origin/main", "failed: …"; "" when nothing was pushed
	Note          string     // the commit the iteration's ledger note went on (NotesRef); "" for none
}

// Waiting is sent before the loop waits to retry the same iteration: after a usage or
// rate limit (Kind "limit") or a transient error (Kind "transient"), or on resuming a
// run that was waiting for a limit (Kind "limit", Resumed).
type Waiting struct {
	Iteration int
	Kind      string
	Message   string // the agent's own words
	Until     time.Time
	Attempt   int  // 1 for the first wait of this iteration
	Resumed   bool // the wait was saved by an earlier loop
	// From is the work tree of the loop that learned the limit, when another loop of the
	// same agent and account shared it; "" for this loop's own limit.
	From string
}

// BaselineTaken is sent once before a run's first iteration when a validate command is
// set: its result then, against which the iterations' validation is judged (see
// baseline.go). Kept: a resumed run's, from its state (it did not run again).
type BaselineTaken struct {
	Command  string
	Format   testreport.Format // validate_format; None: the exit code decides
	Read     testreport.Format // the format its output was read as (auto's guess); None: no tests found
	Kept     bool
	Moved    bool   // taken again, of the base, because the branch took in new commits of its base
	Commit   string // the commit it was taken at
	ExitCode int
	TimedOut bool
	Duration time.Duration
	Tests    int               // the tests its output named
	Failing  []testreport.Test // those failing, sorted
	Log      string            // where its output is saved, relative to the repository
}

// ValidationFailed is sent when the validate command failed after an iteration; its
// output goes into the next prompt.
type ValidationFailed struct {
	Iteration  int
	Validation Validation
}

// UntilFailed is sent when the promise command (--until) failed after an iteration; its
// output goes into the next prompt.
type UntilFailed struct {
	Iteration int
	Until     Validation
}

// Judged is sent when the judge has answered about an iteration (or failed to): a
// FAIL's reasons go into the next prompt.
type Judged struct {
	Iteration int
	Judgement Judgement
}

// Pushed is sent after auto-push, whether it worked (Err nil) or not.
type Pushed struct {
	Iteration int
	Target    string // remote/branch
	Commit    string
	Err       error
}

// Paused is sent when the loop stops before starting the agent because `git ralph
// pause` asked it to: before iteration Iteration, or, with Retry, before another attempt
// at it after a wait. Nothing starts until Resumed.
type Paused struct {
	Iteration int
	Retry     bool
	At        time.Time
	Asked     time.Time // when the pause was asked; zero when unknown
}

// Resumed is sent when `git ralph resume` ended a pause.
type Resumed struct {
	Iteration int
	At        time.Time
	Paused    time.Duration // how long the loop was paused
}

// RunFinished closes a run.
type RunFinished struct {
	Result Result
	At     time.Time
}

func (RunStarted) event()        {}
func (Warning) event()           {}
func (IterationStarted) event()  {}
func (AgentStopping) event()     {}
func (OutputTruncated) event()   {}
func (IterationFinished) event() {}
func (RunFinished) event()       {}
func (Waiting) event()           {}
func (ValidationFailed) event()  {}
func (Pushed) event()            {}
func (UntilFailed) event()       {}
func (Judged) event()            {}
func (Paused) event()            {}
func (Resumed) event()           {}
func (BaselineTaken) event()     {}
