package watch

import (
	"time"

	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// State is the loop's state as its badge shows it.
type State string

// The states the header's badge tells apart, each in its colour.
const (
	Running     State = "running"
	Pausing     State = "pausing"      // running; holds once its iteration is recorded
	Paused      State = "paused"       // holds until 'git ralph resume'
	Waiting     State = "waiting"      // for a usage limit's reset (Snapshot.WaitUntil)
	NeedsReview State = "needs-review" // the merge queue needs the user
	Failed      State = "failed"       // the agent could not run, too many errors, or the loop died
	Done        State = "done"         // the run ended for good (success, max, idle, stagnation)
	Stopped     State = "stopped"      // stopped unfinished (interrupted, a limit, a budget); resumable
	NotRun      State = "not run"      // no loop has run here
)

// Snapshot is what the view shows of the loop at one moment, as the command read it.
type Snapshot struct {
	// Loop names the loop ("main" for the main work tree's); Branch, Mode, Task (a task's
	// or template's name, "" for none), Agent and Model say what it runs.
	Loop, Branch, Mode, Task, Agent, Model string
	State                                  State
	// Status is the status's sentence (why it stopped, what needs review, …): shown when
	// the loop is not simply running.
	Status string
	// Now is when it was read: the clocks below are measured against it.
	Now       time.Time
	WaitUntil time.Time // Waiting: the limit's reset
	// Iteration is the one in progress (else the last completed) of Max (0: unlimited).
	Iteration, Max int
	// Started is when the running iteration began (zero: none runs); Mean is the mean
	// duration of the run's recorded iterations (0: none yet).
	Started time.Time
	Mean    time.Duration
	// Budgets are the run's spend against its budgets; Spend says it when no budget is set.
	Budgets []Budget
	Spend   string
	// Notes are further one-line facts (the work tree's checkpoints).
	Notes []string
	// Iterations are the run's iterations, oldest first, the running one last.
	Iterations []Iteration
	// Output is the live output log to show (the running iteration's, else the last
	// one's); "" when there is none. Format is how to render it.
	Output string
	Format agentcli.Format
}

// Budget is one budget and what was spent of it: Text says both ("$1.20 of $5.00").
type Budget struct {
	Name        string
	Used, Limit float64
	Text        string
}

// Iteration is one row of the iterations list.
type Iteration struct {
	N          int // the repository-wide number (history, logs, rollback)
	Running    bool
	Outcome    string // success, done, failure, halted, interrupted, crashed
	Validation string // "passed", "failed: exit code 2"; "" none configured
	Judge      string // PASS, FAIL, error; "" none ran
	Duration   time.Duration
	Cost       string // "$0.12"; "" not reported
	Insertions int
	Deletions  int
	// Diff and Output are the iteration's files ("" when not kept); Format renders Output.
	Diff, Output string
	Format       agentcli.Format
}
