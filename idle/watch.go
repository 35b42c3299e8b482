package idle

import "github.com/git-ralph/git-ralph/gitops"

// Watch answers, iteration after iteration, whether the loop is making progress. It holds
// the idle counter and the stagnation check (iterations alike). It never runs the agent
// or git: the loop hands it what it saw.
type Watch struct {
	Counter
	Stagnation Stagnation
}

// Ending is how an iteration ended, as far as the question of progress goes.
type Ending int

const (
	// Succeeded: the agent worked and exited cleanly, or signalled SUCCESS.
	Succeeded Ending = iota
	// Failed: the consecutive-error breaker counts it.
	Failed
	// Uncounted: interrupted, or halted on a limit or a login; the run does it again when
	// it resumes, so it is not counted.
	Uncounted
)

// Iteration is what the loop saw of one finished iteration.
type Iteration struct {
	Before, After gitops.Checkpoint // the repository when it started and when it ended
	Ending        Ending
	Message       string // the agent's final message (its last words); "" for none
	Failure       string // what the validation failure said; "" when validation passed or none ran
}

// Observation is what the watch observed of one iteration.
type Observation struct {
	Progress bool // the iteration changed something: HEAD or the working tree's content
	Stop     bool // the idle threshold is reached: the run stops as idle
	// Repetition is the stagnation check's finding: the iteration's likeness to the one
	// before it, and whether to nudge the agent or stop.
	Repetition Repetition
}

// Finished observes one finished iteration. Only an iteration that succeeded and changed
// nothing is idle: a failure that changed nothing is the consecutive-error breaker's (an
// API that is down must abort as failing, with its message, not stop as idle first) and
// leaves the count as it was; a failure that changed something is progress all the same.
func (w *Watch) Finished(it Iteration) Observation {
	o := Observation{Progress: Progress(it.Before, it.After), Repetition: w.Stagnation.Observe(it)}
	switch {
	case it.Ending == Uncounted:
		return o
	case it.Ending == Failed && !o.Progress:
		return o
	}
	o.Stop = w.Observe(o.Progress)
	return o
}
