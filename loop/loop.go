package loop

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/idle"
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/prompts"
)

// Defaults of the settings that have one.
const (
	DefaultMaxIterations        = 5
	DefaultMaxConsecutiveErrors = 3
	DefaultMaxOutputBuffer      = 10 << 20
	DefaultIdleThreshold        = 2
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
	IdleThreshold        int    // stop after this many iterations without git changes; 0: never
	Context              string // extra text for every iteration's prompt
	Fresh                bool   // start a new run even if the last one is unfinished
}

// Deps are what Run needs from its surroundings.
type Deps struct {
	Reporter Reporter
	Live     io.Writer       // optional: the agent's output as it arrives (--verbose)
	Hurry    <-chan struct{} // closed on a second interrupt: skip the grace period
	Finish   <-chan struct{} // closed by `git ralph cancel`: stop after this iteration
	Grace    time.Duration   // SIGTERM→SIGKILL; 0: agent.DefaultGrace
	Now      func() time.Time
}

// Status is how a run ended.
type Status string

const (
	StatusSuccess     Status = "success"
	StatusMaxIters    Status = "max-iters"
	StatusAborted     Status = "aborted"
	StatusIdle        Status = "idle"
	StatusInterrupted Status = "interrupted"
)

// ExitCode maps a status to the exit code of `git ralph loop`.
func (s Status) ExitCode() int {
	return map[Status]int{StatusSuccess: 0, StatusAborted: 1, StatusMaxIters: 2, StatusIdle: 3, StatusInterrupted: 130}[s]
}

// Result is how a run ended and what it took.
type Result struct {
	Status      Status
	Run         string
	Iterations  int // iterations of this invocation that ran to the end
	Last        int // the run's last completed iteration (counts resumed ones)
	Consecutive int
	Threshold   int
	Idle        int
	Cancelled   bool // stopped by `git ralph cancel`
	Elapsed     time.Duration
	Stats       Stats
}

// Run drives the agent through iterations until a stop condition, resuming the
// repository's unfinished run unless cfg.Fresh. Cancelling ctx (SIGINT, SIGTERM) stops
// the current agent and ends the run as interrupted. Errors are for runs that could not
// go on at all: git failing, a prompt file that vanished, a state that cannot be saved.
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

// runner is the state of one invocation of the loop.
type runner struct {
	cfg     Config
	deps    Deps
	journal *journal
	idle    idle.Counter
	res     Result
	start   time.Time
	here    gitops.Checkpoint // the repository now: after the last iteration
}

func (r *runner) run(ctx context.Context) (Result, error) {
	r.start = r.deps.Now()
	r.res.Threshold = r.cfg.MaxConsecutiveErrors
	r.idle.Threshold = r.cfg.IdleThreshold
	first, err := r.open(ctx)
	if err != nil {
		return r.res, err
	}
	err = r.iterate(ctx, first)
	r.res.Elapsed = r.deps.Now().Sub(r.start)
	if err != nil {
		r.close(StatusAborted, err)
		return r.res, err
	}
	if err := r.close(r.res.Status, nil); err != nil {
		return r.res, err
	}
	r.report(RunFinished{Result: r.res, At: r.deps.Now()})
	return r.res, nil
}

func (r *runner) iterate(ctx context.Context, first int) error {
	for i := first; ; i++ {
		if status, stop := r.stopBefore(ctx, i); stop {
			r.res.Status = status
			return nil
		}
		if err := r.iteration(ctx, i); err != nil || r.res.Status != "" {
			return err
		}
	}
}

// stopBefore checks the conditions that end a run before iteration i starts.
func (r *runner) stopBefore(ctx context.Context, i int) (Status, bool) {
	select {
	case <-r.deps.Finish:
		r.res.Cancelled = true
		return StatusInterrupted, true
	default:
	}
	switch {
	case ctx.Err() != nil:
		return StatusInterrupted, true
	case r.cfg.MaxIterations > 0 && i > r.cfg.MaxIterations:
		return StatusMaxIters, true
	}
	return "", false
}

// iteration runs iteration i: the agent, then the measurement of what it changed.
func (r *runner) iteration(ctx context.Context, i int) error {
	prompt, err := prompts.Assemble(prompts.Spec{Dir: r.cfg.Dir, Mode: r.cfg.Mode, Context: r.cfg.Context})
	if err != nil {
		return fmt.Errorf("assembling the prompt of iteration %d: %w", i, err)
	}
	if ctx.Err() != nil {
		r.res.Status = StatusInterrupted // interrupted before the agent started
		return nil
	}
	started := r.deps.Now()
	it, err := r.journal.begin(r.here, started, r.cfg.MaxOutputBuffer)
	if err != nil {
		return err
	}
	r.report(IterationStarted{Iteration: i, Max: r.cfg.MaxIterations, At: started, Record: it.number})
	text := prompt.Text()
	res, err := agent.Run(ctx, r.agentSpec(i, text, it))
	if err != nil {
		it.output.close(nil, 0)
		return err
	}
	if res.Truncated {
		r.report(OutputTruncated{Iteration: i, Total: res.OutputBytes, Kept: len(res.Output)})
	}
	return r.finish(ctx, i, it, res, text)
}

func (r *runner) agentSpec(i int, prompt string, it *iterationRecord) agent.Spec {
	max := ""
	if r.cfg.MaxIterations > 0 {
		max = strconv.Itoa(r.cfg.MaxIterations)
	}
	return agent.Spec{
		Command: r.cfg.AgentCmd,
		Dir:     r.cfg.Dir,
		Env: []string{"RALPH_ITERATION=" + strconv.Itoa(i), "RALPH_MODE=" + r.cfg.Mode,
			"RALPH_MAX_ITERATIONS=" + max, "RALPH_RUN=" + r.res.Run},
		Prompt:    strings.NewReader(prompt),
		Timeout:   r.cfg.Timeout,
		Grace:     r.deps.Grace,
		MaxOutput: r.cfg.MaxOutputBuffer,
		Live:      r.deps.Live,
		Log:       it.output,
		Hurry:     r.deps.Hurry,
		Started:   r.agentStarted,
		Marker:    "RALPH_RUN=" + r.res.Run,
		Stopping: func(sig syscall.Signal, why string) {
			r.report(AgentStopping{Iteration: i, Signal: sig, Why: why})
		},
	}
}

// agentStarted saves the agent's process group, so that a git-ralph killed with -9
// can stop it when the loop next starts.
func (r *runner) agentStarted(pgid int) {
	r.journal.state.AgentPGID, r.journal.state.AgentStartedAt = pgid, r.deps.Now()
	if err := r.journal.save(); err != nil {
		r.report(Warning{Message: err.Error()})
	}
}

// finish classifies iteration i, records it, and decides whether the run stops.
func (r *runner) finish(ctx context.Context, i int, it *iterationRecord, res agent.Result, prompt string) error {
	promise := ScanPromise(withoutEcho(res.Output, prompt))
	outcome, reason := Classify(res, promise)
	if res.TimedOut {
		reason = fmt.Sprintf("timed out after %s", r.cfg.Timeout)
	}
	rec := record(r.res.Run, i, r.cfg.Mode, it.started, r.deps.Now(), res, outcome, promise)
	after, rec, err := r.journal.finish(context.WithoutCancel(ctx), it, res, rec)
	if err != nil {
		return err
	}
	progress := idle.Progress(r.here, after)
	r.here = after
	r.count(outcome, progress, reason)
	if outcome != OutcomeInterrupted {
		r.res.Iterations++
		r.res.Last = i
		r.res.Stats.Add(res.Duration)
	}
	if err := r.saveIteration(i, outcome, after); err != nil {
		return err
	}
	r.report(IterationFinished{Iteration: i, Max: r.cfg.MaxIterations, At: r.deps.Now(),
		Duration: res.Duration, Outcome: outcome, Reason: reason, Promise: promise,
		ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut,
		Consecutive: r.res.Consecutive, Threshold: r.cfg.MaxConsecutiveErrors,
		OutputBytes: res.OutputBytes, Survivors: res.Survivors, Record: rec,
		Progress: progress, Idle: r.idle.Idle, IdleThreshold: r.cfg.IdleThreshold})
	return nil
}

// count updates the failure and idle counters and sets the run's status when one of
// them, or the agent's SUCCESS, ends it.
func (r *runner) count(outcome Outcome, progress bool, reason string) {
	switch outcome {
	case OutcomeInterrupted:
		r.res.Status = StatusInterrupted
		return
	case OutcomeFailure:
		r.res.Consecutive++
		r.journal.state.ErrorCount++
		r.journal.state.LastError = reason
	default:
		r.res.Consecutive = 0
	}
	idleStop := r.idle.Observe(progress)
	r.res.Idle = r.idle.Idle
	switch {
	case outcome == OutcomeDone:
		r.res.Status = StatusSuccess
	case r.res.Consecutive >= r.cfg.MaxConsecutiveErrors:
		r.res.Status = StatusAborted
	case idleStop:
		r.res.Status = StatusIdle
	}
}

func (r *runner) report(e Event) { r.deps.Reporter.Report(e) }

// ErrNoAgent means no agent command was configured.
var ErrNoAgent = fmt.Errorf("no agent command configured")

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
	case c.IdleThreshold < 0:
		return fmt.Errorf("idle threshold must not be negative, got %d", c.IdleThreshold)
	}
	return nil
}
