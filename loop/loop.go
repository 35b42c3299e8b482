package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/prompts"
)

// Defaults of the settings that have one.
const (
	DefaultMaxIterations        = 5
	DefaultMaxConsecutiveErrors = 3
	DefaultMaxOutputBuffer      = 10 << 20
)

// Config is one run's settings, already resolved from flags and files.
type Config struct {
	Dir                  string        // repository root; the agent runs here
	Mode                 string        // names the prompt file PROMPT_<mode>.md
	AgentCmd             string        // run with sh -c
	MaxIterations        int           // 0: unlimited
	Timeout              time.Duration // per iteration; 0: none
	MaxConsecutiveErrors int
	MaxOutputBuffer      int
	Context              string // extra text for every iteration's prompt
	Run                  string // the run's id, given to the agent as RALPH_RUN
}

// Deps are what Run needs from its surroundings.
type Deps struct {
	Reporter Reporter
	Live     io.Writer       // optional: the agent's output as it arrives (--verbose)
	Hurry    <-chan struct{} // closed on a second interrupt: skip the grace period
	Grace    time.Duration   // SIGTERM→SIGKILL; 0: agent.DefaultGrace
	Now      func() time.Time
}

// Status is how a run ended.
type Status string

const (
	StatusSuccess     Status = "success"
	StatusMaxIters    Status = "max-iters"
	StatusAborted     Status = "aborted"
	StatusInterrupted Status = "interrupted"
)

// ExitCode maps a status to the exit code of `git ralph loop`.
func (s Status) ExitCode() int {
	return map[Status]int{StatusSuccess: 0, StatusAborted: 1, StatusMaxIters: 2, StatusInterrupted: 130}[s]
}

// Result is how a run ended and what it took.
type Result struct {
	Status      Status
	Iterations  int // iterations that ran to the end
	Consecutive int
	Threshold   int
	Elapsed     time.Duration
	Stats       Stats
}

// Run drives the agent through iterations until a stop condition. The context's
// cancellation (SIGINT, SIGTERM) stops the current agent and ends the run as interrupted.
// Errors are for runs that could not go on at all, such as a prompt file that vanished.
func Run(ctx context.Context, cfg Config, deps Deps) (Result, error) {
	r := &runner{cfg: cfg, deps: deps.withDefaults()}
	return r.run(ctx)
}

func (d Deps) withDefaults() Deps {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Reporter == nil {
		d.Reporter = discard{}
	}
	return d
}

type discard struct{}

func (discard) Report(Event) {}

// runner is the state of one run.
type runner struct {
	cfg   Config
	deps  Deps
	res   Result
	start time.Time
}

func (r *runner) run(ctx context.Context) (Result, error) {
	r.start = r.deps.Now()
	r.res.Threshold = r.cfg.MaxConsecutiveErrors
	r.report(RunStarted{Run: r.cfg.Run, Mode: r.cfg.Mode, Max: r.cfg.MaxIterations, At: r.start})
	err := r.iterate(ctx)
	r.res.Elapsed = r.deps.Now().Sub(r.start)
	if err != nil {
		return r.res, err
	}
	r.report(RunFinished{Result: r.res, At: r.deps.Now()})
	return r.res, nil
}

func (r *runner) iterate(ctx context.Context) error {
	for i := 1; ; i++ {
		if status, stop := r.stopBefore(ctx, i); stop {
			r.res.Status = status
			return nil
		}
		done, err := r.iteration(ctx, i)
		if err != nil || done {
			return err
		}
	}
}

// stopBefore checks the conditions that end a run before iteration i starts.
func (r *runner) stopBefore(ctx context.Context, i int) (Status, bool) {
	switch {
	case ctx.Err() != nil:
		return StatusInterrupted, true
	case r.cfg.MaxIterations > 0 && i > r.cfg.MaxIterations:
		return StatusMaxIters, true
	}
	return "", false
}

// iteration runs iteration i and reports whether the run is over.
func (r *runner) iteration(ctx context.Context, i int) (bool, error) {
	prompt, err := prompts.Assemble(r.cfg.Dir, r.cfg.Mode, r.cfg.Context)
	if err != nil {
		return true, fmt.Errorf("assembling the prompt of iteration %d: %w", i, err)
	}
	r.report(IterationStarted{Iteration: i, Max: r.cfg.MaxIterations, At: r.deps.Now()})
	res, err := agent.Run(ctx, r.agentSpec(i, prompt.Text()))
	if err != nil {
		return true, err
	}
	if res.Truncated {
		r.report(OutputTruncated{Iteration: i, Total: res.OutputBytes, Kept: len(res.Output)})
	}
	fin := r.finish(i, res)
	r.report(fin)
	return r.res.Status != "", nil
}

func (r *runner) agentSpec(i int, prompt string) agent.Spec {
	max := ""
	if r.cfg.MaxIterations > 0 {
		max = strconv.Itoa(r.cfg.MaxIterations)
	}
	return agent.Spec{
		Command: r.cfg.AgentCmd,
		Dir:     r.cfg.Dir,
		Env: []string{"RALPH_ITERATION=" + strconv.Itoa(i), "RALPH_MODE=" + r.cfg.Mode,
			"RALPH_MAX_ITERATIONS=" + max, "RALPH_RUN=" + r.cfg.Run},
		Prompt:    strings.NewReader(prompt),
		Timeout:   r.cfg.Timeout,
		Grace:     r.deps.Grace,
		MaxOutput: r.cfg.MaxOutputBuffer,
		Live:      r.deps.Live,
		Hurry:     r.deps.Hurry,
		Stopping: func(sig syscall.Signal, why string) {
			r.report(AgentStopping{Iteration: i, Signal: sig, Why: why})
		},
	}
}

// finish classifies iteration i, updates the counters and decides whether to stop.
func (r *runner) finish(i int, res agent.Result) IterationFinished {
	promise := ScanPromise(res.Output)
	outcome, reason := Classify(res, promise)
	if res.TimedOut {
		reason = fmt.Sprintf("timed out after %s", r.cfg.Timeout)
	}
	switch outcome {
	case OutcomeInterrupted:
		r.res.Status = StatusInterrupted
	case OutcomeFailure:
		r.res.Consecutive++
		if r.res.Consecutive >= r.cfg.MaxConsecutiveErrors {
			r.res.Status = StatusAborted
		}
	case OutcomeDone:
		r.res.Consecutive = 0
		r.res.Status = StatusSuccess
	case OutcomeSuccess:
		r.res.Consecutive = 0
	}
	if outcome != OutcomeInterrupted {
		r.res.Iterations++
		r.res.Stats.Add(res.Duration)
	}
	return IterationFinished{Iteration: i, Max: r.cfg.MaxIterations, At: r.deps.Now(),
		Duration: res.Duration, Outcome: outcome, Reason: reason, Promise: promise,
		ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut,
		Consecutive: r.res.Consecutive, Threshold: r.cfg.MaxConsecutiveErrors,
		OutputBytes: res.OutputBytes, Survivors: res.Survivors}
}

func (r *runner) report(e Event) { r.deps.Reporter.Report(e) }

// ErrNoAgent means no agent command was configured.
var ErrNoAgent = errors.New("no agent command configured")

// Validate checks a Config for values the loop cannot run with.
func (c Config) Validate() error {
	switch {
	case strings.TrimSpace(c.AgentCmd) == "":
		return ErrNoAgent
	case c.MaxIterations < 0:
		return fmt.Errorf("max iterations must not be negative, got %d", c.MaxIterations)
	case c.Timeout < 0:
		return fmt.Errorf("iteration timeout must be positive, got %s", c.Timeout)
	case c.MaxConsecutiveErrors < 1:
		return fmt.Errorf("max consecutive errors must be at least 1, got %d", c.MaxConsecutiveErrors)
	case c.MaxOutputBuffer < 1:
		return fmt.Errorf("max output buffer must be at least 1 byte, got %d", c.MaxOutputBuffer)
	}
	return nil
}
