package loop

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/idle"
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/agentcli"
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
	Dir     string   // repository root; the agent runs here
	Mode    string   // names the prompt file PROMPT_<mode>.md
	Prompts []string // prompt fragments to concatenate instead of PROMPT_<mode>.md
	// AgentCmd is a custom command line, run with sh -c and the prompt on stdin; when
	// empty, Agent's command line runs.
	AgentCmd string
	// Agent is the preset whose parser reads the agent's output (and whose command runs
	// when AgentCmd is empty); the zero Preset reads the output as plain text.
	Agent                agentcli.Preset
	MaxIterations        int           // 0: unlimited
	Timeout              time.Duration // per iteration; 0: none
	MaxConsecutiveErrors int
	MaxOutputBuffer      int
	IdleThreshold        int    // stop after this many iterations without git changes; 0: never
	Context              string // extra text for every iteration's prompt
	Fresh                bool   // start a new run even if the last one is unfinished

	ValidateCmd     string        // run with sh -c after each iteration; "" for none
	ValidateTimeout time.Duration // 0: DefaultValidateTimeout

	Push   bool   // push HEAD after each iteration that moved it and passed validation
	Remote string // "" = the branch's upstream remote, else origin
	Branch string // "" = the upstream branch, else the same name

	BackoffBase  time.Duration // first wait after a limit with no stated reset; doubles
	BackoffMax   time.Duration // cap of those waits
	MaxLimitWait time.Duration // the longest wait for a limit before the run stops instead
	// StopOnOverage stops the run after an iteration the agent was served on paid extra
	// usage (claude past its plan's window); off, such an iteration counts like any other.
	StopOnOverage bool

	Retention history.Retention // how much of the history's outputs and diffs to keep; zero: all
}

// Deps are what Run needs from its surroundings.
type Deps struct {
	Reporter Reporter
	Live     io.Writer       // optional: the agent's output as it arrives (--verbose)
	Hurry    <-chan struct{} // closed on a second interrupt: skip the grace period
	Finish   <-chan struct{} // closed by `git ralph cancel`: stop after this iteration
	Grace    time.Duration   // SIGTERM→SIGKILL; 0: agent.DefaultGrace
	Now      func() time.Time
	// Watchdog builds the command of the process that stops the agent if git-ralph dies
	// (see agent.Spec.Watchdog); optional.
	Watchdog func(marker string, grace time.Duration) *exec.Cmd
}

// Status is how a run ended.
type Status string

const (
	StatusSuccess     Status = "success"
	StatusMaxIters    Status = "max-iters"
	StatusAborted     Status = "aborted"
	StatusIdle        Status = "idle"
	StatusInterrupted Status = "interrupted"
	StatusLimited     Status = "limited" // a usage limit the loop will not wait out
	StatusFatal       Status = "fatal"   // the agent cannot run (not logged in, bad flags, …)
)

// ExitCode maps a status to the exit code of `git ralph loop`.
func (s Status) ExitCode() int {
	return map[Status]int{StatusSuccess: 0, StatusAborted: 1, StatusMaxIters: 2, StatusIdle: 3,
		StatusInterrupted: 130, StatusLimited: 1, StatusFatal: 1}[s]
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
	Cancelled   bool   // stopped by `git ralph cancel`
	Reason      string // why a limited, fatal or aborted-by-push run stopped, in words
	Hint        string // what the user can do about it, when there is more to say than Reason
	Record      int    // the history number of the iteration that stopped a limited or fatal run; 0: none
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
	idle    idle.Watch // is the run making progress
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
		return r.failed(err)
	}
	if err := r.close(r.res.Status, nil); err != nil {
		return r.failed(err)
	}
	r.report(RunFinished{Result: r.res, At: r.deps.Now()})
	return r.res, nil
}

// failed ends a started run that could not go on (git failing, a state that cannot be
// saved): it still reports RunFinished, as aborted with the error as the reason, so that
// every run_started has its run_finished and on_failure hears of it.
func (r *runner) failed(err error) (Result, error) {
	r.res.Status = StatusAborted
	r.res.Reason = err.Error()
	r.report(RunFinished{Result: r.res, At: r.deps.Now()})
	return r.res, err
}

func (r *runner) iterate(ctx context.Context, first int) error {
	if status, stop := r.stopBefore(ctx, first); stop { // nothing left to run: no saved wait to sit out
		r.res.Status = status
		return nil
	}
	if !r.waitSaved(ctx, first) {
		return nil
	}
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

// iteration runs iteration i: the agent (again after a limit), then validation, push and
// the measurement of what it changed.
func (r *runner) iteration(ctx context.Context, i int) error {
	spec, injected, err := NextPrompt(r.cfg, r.journal.state.Feedback)
	if err != nil {
		r.report(Warning{Message: err.Error()})
	}
	prompt, err := prompts.Assemble(spec)
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
	a, err := r.attempts(ctx, i, it, text)
	if err != nil {
		it.output.close(nil, 0)
		return err
	}
	if !a.res.Interrupted && a.stop == "" { // an iteration that runs again carries them again
		if err := history.Consume(injected); err != nil {
			r.report(Warning{Message: fmt.Sprintf("cannot remove the injected texts the prompt carried: %v", err)})
		}
	}
	return r.finish(ctx, i, it, a)
}

// NextPrompt says what the next iteration's prompt is made of: the prompt files, the
// context, the texts queued with `git ralph inject` (also returned, to be consumed once
// carried), and feedback, the last iteration's validation failure. The queue is read
// fresh each time; an error reading it is returned with the spec that lacks it.
func NextPrompt(cfg Config, feedback string) (prompts.Spec, []history.Injection, error) {
	spec := prompts.Spec{Dir: cfg.Dir, Mode: cfg.Mode, Files: cfg.Prompts, Context: cfg.Context, Feedback: feedback}
	injected, err := history.Injections(cfg.Dir)
	for _, in := range injected {
		spec.Injected = append(spec.Injected, prompts.Section{Source: "git ralph inject, " + in.At.Local().Format("15:04:05"), Body: in.Text})
	}
	return spec, injected, err
}

func (r *runner) agentSpec(i int, prompt string, it *iterationRecord) agent.Spec {
	return agent.Spec{
		Command:   r.command(),
		Dir:       r.cfg.Dir,
		Env:       append(r.agentEnv(i), r.cfg.Agent.Env...),
		Prompt:    strings.NewReader(prompt),
		Timeout:   r.cfg.Timeout,
		Grace:     r.deps.Grace,
		MaxOutput: r.cfg.MaxOutputBuffer,
		Live:      r.deps.Live,
		Log:       it.output,
		Hurry:     r.deps.Hurry,
		Started:   r.agentStarted,
		Marker:    "RALPH_RUN=" + r.res.Run,
		Watchdog:  r.deps.Watchdog,
		Stopping: func(sig syscall.Signal, why string) {
			r.report(AgentStopping{Iteration: i, Signal: sig, Why: why})
		},
	}
}

// grace is the agent's SIGTERM→SIGKILL grace period, which also bounds the bookkeeping
// after an interrupt.
func (r *runner) grace() time.Duration {
	if r.deps.Grace > 0 {
		return r.deps.Grace
	}
	return agent.DefaultGrace
}

// agentStarted saves the agent's process group, so that a git-ralph killed with -9
// can stop it when the loop next starts.
func (r *runner) agentStarted(pgid int) {
	r.journal.state.AgentPGID, r.journal.state.AgentStartedAt = pgid, r.deps.Now()
	if err := r.journal.save(); err != nil {
		r.report(Warning{Message: err.Error()})
	}
}

// verdict is how an iteration ended, as the counters and the stop conditions see it.
type verdict struct {
	outcome Outcome
	reason  string
	stop    Status // set when the run ends after this iteration whatever the counters say
	why     string // the run's stop reason in words, with stop
	hint    string // what the user can do about stop
}

// finish classifies iteration i, validates it, pushes it, records it, and decides
// whether the run stops.
func (r *runner) finish(ctx context.Context, i int, it *iterationRecord, a attempt) error {
	res, promise := a.res, a.promise
	v := r.classify(i, a, promise)
	var val Validation
	if v.outcome.Counts() {
		val = r.validate(ctx, i, r.journal.store.ValidationPath(it.number))
		r.judgeValidation(i, &v, val)
	}
	pushed := r.autoPush(ctx, i, it, &v, val)
	rec := record(r.res.Run, i, r.cfg.Mode, it.started, r.deps.Now(), res, v.outcome, promise)
	fillRecord(&rec, a, val, pushed, r.cfg.Agent.Name)
	bctx, stop := bookkeeping(ctx, r.grace(), r.deps.Hurry)
	after, rec, err := r.journal.finish(bctx, it, res, rec)
	stop()
	if err != nil && ctx.Err() != nil {
		r.report(Warning{Message: fmt.Sprintf("iteration %d: its record is incomplete: %v", i, err)})
		r.res.Status = StatusInterrupted
		return nil
	}
	if err != nil {
		return err
	}
	r.prune(context.WithoutCancel(ctx))
	watched := r.idle.Finished(idle.Iteration{Before: r.here, After: after, Ending: ending(v.outcome)})
	r.here = after
	if v.stop != "" && v.stop != StatusAborted {
		r.res.Record, r.res.Hint = rec.Iteration, v.hint
	}
	r.count(v, watched.Stop)
	if v.outcome.Counts() {
		r.res.Iterations++
		r.res.Last = i
		r.res.Stats.Add(res.Duration)
	}
	if err := r.saveIteration(i, v.outcome, after); err != nil {
		return err
	}
	r.report(IterationFinished{Iteration: i, Max: r.cfg.MaxIterations, At: r.deps.Now(),
		Duration: res.Duration, Outcome: v.outcome, Reason: v.reason, Promise: promise,
		ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut,
		Consecutive: r.res.Consecutive, Threshold: r.cfg.MaxConsecutiveErrors,
		OutputBytes: res.OutputBytes, Survivors: res.Survivors, Record: rec,
		Progress: watched.Progress, Idle: r.idle.Idle, IdleThreshold: r.cfg.IdleThreshold,
		Validation: val, Push: pushed})
	return nil
}

// classify applies the outcome matrix to the agent's last attempt, with what its
// output reader found: a fatal error or a limit the loop will not wait out stops the
// run, and an agent that reports an error fails even with exit code 0 (codex, claude).
func (r *runner) classify(i int, a attempt, promise Promise) verdict {
	res := a.res
	outcome, reason := Classify(res, promise)
	switch {
	case res.TimedOut:
		reason = fmt.Sprintf("timed out after %s", r.cfg.Timeout)
	case outcome == OutcomeInterrupted:
	case a.stop != "":
		kept := a.stopWhy
		if a.stopKept != "" {
			kept = a.stopKept
		}
		return verdict{outcome: OutcomeHalted, reason: kept, stop: a.stop, why: a.stopWhy, hint: a.stopHint}
	case a.read.IsError && outcome == OutcomeSuccess:
		outcome, reason = OutcomeFailure, "the agent reported an error"
	case outcome == OutcomeFailure && promise == PromiseNone && res.Signal == 0:
		reason = r.exitReason(res.ExitCode)
	}
	if outcome == OutcomeFailure && !res.TimedOut && res.Signal == 0 && promise == PromiseNone && a.read.Error != "" {
		reason += ": " + oneLine(a.read.Error, maxReasonError)
	}
	v := verdict{outcome: outcome, reason: reason}
	// on the run's last iteration the run ends anyway, as max-iters: no wait to save
	if a.overage && r.cfg.StopOnOverage && outcome.Counts() && outcome != OutcomeDone && i != r.cfg.MaxIterations {
		r.stopOnOverage(&v, a.planResets)
	}
	return v
}

// stopOnOverage stops the run after an iteration served on paid extra usage. When the
// agent said when the plan's window resets, that is saved as a limit's wait: the next
// loop waits for it (or stops at once while it is further than max_limit_wait) instead
// of paying for one more iteration on overage each time it starts.
func (r *runner) stopOnOverage(v *verdict, planResets time.Time) {
	v.stop = StatusLimited
	v.why = "the agent was served on paid extra usage (overage), and stop_on_overage is set"
	if !planResets.After(r.deps.Now()) {
		v.hint = "the iteration counted; the agent stated no reset of its plan's window still to come, so the next 'git ralph loop' goes on, and stops again after an iteration served on overage; set stop_on_overage = false to go on paying for extra usage"
		return
	}
	st := &r.journal.state
	planResets = planResets.Add(min(resetMargin, r.backoffMax())) // as for a limit's stated reset
	st.WaitUntil, st.LimitMessage = planResets, "stop_on_overage: the plan's window is spent, and the agent is served only on paid extra usage until it resets"
	v.hint = fmt.Sprintf("the iteration counted; the next 'git ralph loop' waits for the plan's window to reset at %s before it runs the agent; set stop_on_overage = false to go on paying for extra usage",
		planResets.Local().Format("2006-01-02 15:04:05"))
}

// judgeValidation applies the validate command's result: SUCCESS ends the run only when
// validation passes, and a failure goes into the next prompt. A failed validation is not
// an agent error (seed 004): the counters see the agent's own outcome.
func (r *runner) judgeValidation(i int, v *verdict, val Validation) {
	r.journal.state.Feedback = ""
	if !val.Ran || val.Passed {
		return
	}
	r.journal.state.Feedback = val.Feedback(i)
	r.report(ValidationFailed{Iteration: i, Validation: val})
	if v.outcome == OutcomeDone {
		v.outcome, v.reason = OutcomeSuccess, "the agent signalled SUCCESS but validation failed"
	}
}

// autoPush pushes HEAD when configured, after an iteration that moved it and passed
// validation. A failed push counts as a failed iteration; after SUCCESS it ends the run
// as aborted, since the work is done but did not reach the remote.
func (r *runner) autoPush(ctx context.Context, i int, it *iterationRecord, v *verdict, val Validation) string {
	if !r.cfg.Push || !v.outcome.Counts() || (val.Ran && !val.Passed) {
		return ""
	}
	head, err := gitops.Head(ctx, r.cfg.Dir)
	if err != nil || head == it.before.Head || head == "" {
		return ""
	}
	target, err := gitops.ResolvePushTarget(ctx, r.cfg.Dir, r.cfg.Remote, r.cfg.Branch)
	if err == nil {
		err = gitops.Push(ctx, r.cfg.Dir, target)
	}
	r.report(Pushed{Iteration: i, Target: target.String(), Commit: head, Err: err})
	if err == nil {
		return "pushed to " + target.String()
	}
	if v.outcome == OutcomeDone {
		v.stop, v.why = StatusAborted, "the agent signalled SUCCESS, but the push failed: "+err.Error()
	}
	v.outcome, v.reason = OutcomeFailure, "push failed: "+err.Error()
	r.journal.state.Feedback = joinFeedback(r.journal.state.Feedback, pushFeedback(i, target.String(), err))
	return "failed: " + err.Error()
}

// fillRecord adds to an iteration's record what the attempts, validation and push did.
// Its tokens and cost are summed over every attempt, retried and limited ones included:
// each was paid for.
func fillRecord(rec *history.Record, a attempt, val Validation, pushed, preset string) {
	rec.RateLimitWaits, rec.Retries, rec.WaitedMS = a.limitWaits, a.retries, a.waited.Milliseconds()
	rec.Validation, rec.Push, rec.Agent = val.Summary(), pushed, preset
	u := a.usage
	rec.Model, rec.InputTokens, rec.OutputTokens = u.Model, u.InputTokens, u.OutputTokens
	rec.CacheRead, rec.CacheWrite = u.CacheReadTokens, u.CacheWriteTokens
	if u.HasCost {
		rec.CostUSD = u.CostUSD
	}
	rec.Overage = a.overage
	if o := Outcome(rec.Outcome); o == OutcomeFailure || o == OutcomeHalted {
		rec.Error = bounded(a.read.Error)
	}
	if len(a.tries) > 1 {
		rec.Attempts = a.tries
	}
}

// count updates the failure counter and sets the run's status when it, the idle watch
// (idleStop), the agent's SUCCESS, or the verdict itself ends it.
func (r *runner) count(v verdict, idleStop bool) {
	switch v.outcome {
	case OutcomeInterrupted:
		r.res.Status = StatusInterrupted
		return
	case OutcomeHalted:
		r.res.Status, r.res.Reason = v.stop, v.why
		r.journal.state.LastError = oneLine(v.reason, maxErrorText)
		return
	case OutcomeFailure:
		r.res.Consecutive++
		r.journal.state.ErrorCount++
		r.journal.state.LastError = oneLine(v.reason, maxErrorText)
	default:
		r.res.Consecutive = 0
	}
	r.res.Idle = r.idle.Idle
	switch {
	case v.stop != "":
		r.res.Status, r.res.Reason = v.stop, v.why
	case v.outcome == OutcomeDone:
		r.res.Status = StatusSuccess
	case r.res.Consecutive >= r.cfg.MaxConsecutiveErrors:
		r.res.Status = StatusAborted
	case idleStop:
		r.res.Status = StatusIdle
	}
}

// ending tells the idle watch how an iteration ended: it decides what that means for
// progress (a failure that changed nothing is not idle).
func ending(o Outcome) idle.Ending {
	switch {
	case !o.Counts():
		return idle.Uncounted
	case o == OutcomeFailure:
		return idle.Failed
	}
	return idle.Succeeded
}

func (r *runner) report(e Event) { r.deps.Reporter.Report(e) }

// ErrNoAgent means no agent command was configured.
var ErrNoAgent = fmt.Errorf("no agent command configured")

// Validate checks a Config for values the loop cannot run with.
func (c Config) Validate() error {
	switch {
	case strings.TrimSpace(c.AgentCmd) == "" && c.Agent.Program == "":
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
