package loop

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/idle"
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/loop/recording"
	"github.com/git-ralph/git-ralph/loop/testreport"
	"github.com/git-ralph/git-ralph/prompts"
)

// Defaults of the settings that have one.
const (
	DefaultMaxIterations        = 5
	DefaultMaxConsecutiveErrors = 3
	DefaultMaxOutputBuffer      = 10 << 20
	DefaultIdleThreshold        = 2
	DefaultStagnationThreshold  = idle.DefaultStagnationThreshold
	DefaultStagnationSimilarity = idle.DefaultStagnationSimilarity
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
	OutputTimeout        time.Duration // stop an agent silent on stdout and stderr this long; 0: none
	MaxConsecutiveErrors int
	MaxOutputBuffer      int
	IdleThreshold        int // stop after this many iterations without git changes; 0: never
	// StagnationThreshold is how many iterations in a row alike (see idle.Stagnation)
	// earn the agent a nudge, and the run a stop if it goes on; 0: no check.
	StagnationThreshold  int
	StagnationSimilarity int    // percent alike that counts as the same text
	Context              string // extra text for every iteration's prompt
	Task                 string // the inline task (`git ralph loop "TASK"`), saved with the run; "": the prompt files say what to do
	Fresh                bool   // start a new run even if the last one is unfinished
	// Feedback chooses what the next prompt carries of the run's failures: "last" (or
	// ""), the last iteration's; "all", every one so far, newest first (see feedback.go).
	Feedback string
	// Judge is a preset name or a command that judges each iteration whose validation
	// passed, with a verdict tag (see judge.go); "" for none.
	Judge string

	ValidateCmd     string        // run with sh -c after each iteration; "" for none
	ValidateTimeout time.Duration // 0: DefaultValidateTimeout
	// ValidateFormat is how ValidateCmd's output names its tests (validate_format): with
	// one, a test failing before the run (the baseline) does not fail an iteration's
	// validation; None: the exit code decides. ValidateTargets must pass (with a format).
	ValidateFormat  testreport.Format
	ValidateTargets []string
	// BaseBranch is a worktree loop's base branch (refs/heads/main): when its branch takes
	// in new commits of it, the baseline is taken again, of the base. "": none.
	BaseBranch string
	// Until is the promise command (--until), run with sh -c after each iteration whose
	// validation passed, bounded like ValidateCmd: when it passes the run is done, whatever
	// the agent printed; while it fails its output goes into the next prompt and the
	// agent's SUCCESS alone does not end the run. "": none.
	Until string

	// Template is the loop template (--template) whose prompt replaces the mode's prompt
	// file and fragments; its name is saved with the run. Zero: none.
	Template Template

	Push   bool   // push HEAD after each iteration that moved it and passed validation
	Remote string // "" = the branch's upstream remote, else origin
	Branch string // "" = the upstream branch, else the same name
	// SecretsAllow are the fingerprints of secret scan findings that may be pushed anyway
	// (.ralph/secrets-allow, as trusted when the run started).
	SecretsAllow map[string]bool

	BackoffBase  time.Duration // first wait after a limit with no stated reset; doubles
	BackoffMax   time.Duration // cap of those waits
	MaxLimitWait time.Duration // the longest wait for a limit before the run stops instead
	// StopOnOverage stops the run after an iteration the agent was served on paid extra
	// usage (claude past its plan's window); off, such an iteration counts like any other.
	StopOnOverage bool

	Retention history.Retention // how much of the history's outputs and diffs to keep; zero: all

	// Limits, when set, is the user's store of usage limits shared by all their loops on
	// this machine: a limit whose reset the agent states is recorded there, and before
	// each attempt the loop waits for a limit recorded for its agent (and account). nil:
	// none shared. LimitFrom names this loop there: its work tree.
	Limits    *history.Limits
	LimitFrom string

	// Record, when set, keeps every attempt of the agent (prompt, timed output, exit
	// status, usage, change to the repository) in a recording (--record).
	Record *recording.Recorder
	// Replay: the agent is a recording played back (--agent replay:DIR). Its records
	// say replayed, and a replay that cannot go on stops the run.
	Replay bool
	// API is how an in-process agent (an API preset) reaches its model, and JudgeAPI the
	// judge's when the judge is one; nil otherwise.
	API, JudgeAPI *APIAgent
	Budget        Budget // max_cost, max_tokens, daily_max_cost
	// PauseFile is the work tree's pause request (history.PauseFile): while it exists the
	// loop starts no agent. "": the loop cannot be paused.
	PauseFile string
}

// Deps are what Run needs from its surroundings.
type Deps struct {
	Reporter Reporter
	Live     io.Writer       // optional: the agent's output as it arrives (--verbose)
	Hurry    <-chan struct{} // closed on a second interrupt: skip the grace period
	Finish   <-chan struct{} // closed by `git ralph cancel`: stop after this iteration
	Grace    time.Duration   // SIGTERM→SIGKILL; 0: agent.DefaultGrace
	// PausePoll is how often a paused loop looks whether it was resumed; 0: DefaultPausePoll.
	PausePoll time.Duration
	// Now and After are the loop's clock: the time it reads, and the timer its waits for
	// limits sleep on (time.After's contract). nil: the real ones; a test gives a clock
	// that moves when the loop waits, to wait out hours at once.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	// Watchdog builds the command of the process that stops the agent if git-ralph dies
	// (see agent.Spec.Watchdog); optional. One is started per run, with its first agent
	// (see agent.Watchdogs).
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
	StatusLimited     Status = "limited"    // a usage limit the loop will not wait out
	StatusFatal       Status = "fatal"      // the agent cannot run (not logged in, bad flags, …)
	StatusBudget      Status = "budget"     // max_cost, max_tokens or daily_max_cost reached
	StatusStagnant    Status = "stagnation" // the same attempt repeated
)

// ExitCode maps a status to the exit code of `git ralph loop`: one code per cause, so
// that a script or cron entry can tell "out of quota" (4) from "over budget" (5) from
// "broken" (1) without reading words.
func (s Status) ExitCode() int {
	return map[Status]int{StatusSuccess: 0, StatusAborted: 1, StatusFatal: 1, StatusMaxIters: 2, StatusIdle: 3,
		StatusLimited: 4, StatusBudget: 5, StatusStagnant: 6, StatusInterrupted: 130}[s]
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
	Cause       string // what stopped the run, where Status has several causes; see StopCause
	Reason      string // why a limited, fatal or aborted-by-push run stopped, in words
	Hint        string // what the user can do about it, when there is more to say than Reason
	Record      int    // the history number of the iteration that stopped a limited or fatal run; 0: none
	Elapsed     time.Duration
	Stats       Stats
	SpentUSD    float64 // the run's spend as its agent reported it, every attempt counted (resumed ones too)
	SpentTokens int64   // the run's input + output tokens, likewise
	// SpentUncosted counts the attempts that reported tokens but no cost: SpentUSD is
	// then a lower bound (or, when it is 0, no figure at all).
	SpentUncosted int
}

// StopCause names what stopped the run in one word, for programs (`--json`'s run_finished
// `cause`): the Cause set where the run stopped, else the one cause its status has.
func (r Result) StopCause() string {
	if r.Cause != "" {
		return r.Cause
	}
	switch {
	case r.Status == StatusInterrupted && r.Cancelled:
		return "cancelled"
	case r.Status == StatusAborted && r.Reason == "":
		return "consecutive_errors"
	}
	return map[Status]string{StatusSuccess: "success", StatusMaxIters: "max_iterations", StatusIdle: "idle",
		StatusAborted: "error", StatusFatal: "agent_cannot_run", StatusLimited: "usage_limit",
		StatusBudget: "budget", StatusStagnant: "stagnation", StatusInterrupted: "interrupted"}[r.Status]
}

// Run drives the agent through iterations until a stop condition, resuming the
// repository's unfinished run unless cfg.Fresh. Cancelling ctx (SIGINT, SIGTERM) stops
// the current agent and ends the run as interrupted. Errors are for runs that could not
// go on at all: git failing, a prompt file that vanished, a state that cannot be saved.
func Run(ctx context.Context, cfg Config, deps Deps) (Result, error) {
	r := &runner{cfg: cfg, deps: deps.withDefaults()}
	r.dogs = agent.NewWatchdogs(r.deps.Watchdog)
	defer func() {
		if p := recover(); p != nil {
			// a panic may unwind while an agent runs: the watchdog is not told the run
			// ended, so it sees this process die and stops the run's processes
			panic(p)
		}
		r.dogs.Close() // every agent of the run is gone by now
	}()
	return r.run(ctx)
}

func (d Deps) withDefaults() Deps {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.After == nil {
		d.After = time.After
	}
	if d.Reporter == nil {
		d.Reporter = discard{}
	}
	if d.PausePoll <= 0 {
		d.PausePoll = DefaultPausePoll
	}
	return d
}

type discard struct{}

func (discard) Report(Event) {}

// runner is one invocation of the loop: it sequences the iterations and keeps the
// result. What each step reads and writes is in its collaborator's signature: the
// logbook (the history's records), the state file, the processes' settings, the
// budgets, the limit waits and the pause, the judge, the ledger's notes, the push and the
// recording, built once the run has its id (collaborate).
type runner struct {
	cfg   Config
	deps  Deps
	res   Result
	start time.Time
	here  gitops.Checkpoint // the repository now: after the last iteration
	idle  idle.Watch        // is the run making progress
	// dogs is the run's watchdog, shared by all its agents (its judge's and validation
	// commands' too)
	dogs *agent.Watchdogs

	book   *logbook
	state  *stateFile
	procs  procs
	budget *budgets
	waits  *limitWaits
	pause  *pauser
	judge  *judge    // nil: none set
	base   *baseline // nil: no validate command
	notes  *notes
	push   *pusher // nil: no auto-push
	takes  *takes
}

func (r *runner) run(ctx context.Context) (Result, error) {
	r.start = r.deps.Now()
	r.res.Threshold = r.cfg.MaxConsecutiveErrors
	r.idle.Threshold = r.cfg.IdleThreshold
	r.idle.Stagnation = idle.Stagnation{Threshold: r.cfg.StagnationThreshold, Similarity: r.cfg.StagnationSimilarity}
	var criteria prompts.Section
	if r.cfg.Judge != "" {
		c, err := prompts.LoadJudge(r.cfg.Dir)
		if err != nil {
			return r.res, err
		}
		criteria = c
	}
	first, err := r.open(ctx)
	if err != nil {
		return r.res, err
	}
	r.collaborate(criteria)
	for _, w := range unmetered(r.cfg.Budget, r.cfg.Agent, r.cfg.API, r.cfg.Judge, r.cfg.JudgeAPI) {
		r.warn(w)
	}
	err = r.iterate(ctx, first)
	r.res.Elapsed = r.deps.Now().Sub(r.start)
	r.res.SpentUSD, r.res.SpentTokens, r.res.SpentUncosted = r.state.SpentUSD, r.state.SpentTokens, r.state.SpentUncosted
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

// collaborate builds the run's collaborators once it has its id and state: each is
// handed the settings it reads and the part of the run it writes, no more. criteria is
// the judge prompt, read when the run started.
func (r *runner) collaborate(criteria prompts.Section) {
	now, warn, cfg := r.deps.Now, r.warn, r.cfg
	r.procs = procs{dir: cfg.Dir, run: r.res.Run, mode: cfg.Mode, max: cfg.MaxIterations, grace: r.deps.Grace,
		hurry: r.deps.Hurry, dogs: r.dogs, started: r.agentStarted, warn: warn}
	r.budget = &budgets{Budget: cfg.Budget, replay: cfg.Replay, now: now, warn: warn}
	r.pause = &pauser{file: cfg.PauseFile, poll: r.deps.PausePoll, finish: r.deps.Finish, now: now, report: r.report}
	r.waits = newLimitWaits(cfg, r.deps, r.state, r.pause, r.report)
	r.judge = newJudge(cfg, criteria, r.procs, now)
	r.base = newBaseline(cfg, r.procs, r.state, r.report)
	r.notes = &notes{dir: cfg.Dir, warn: warn}
	r.takes = &takes{rec: cfg.Record, run: r.res.Run, warn: warn}
	if cfg.Push {
		r.push = &pusher{dir: cfg.Dir, remote: cfg.Remote, branch: cfg.Branch, allow: cfg.SecretsAllow, report: r.report}
	}
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
	if r.promiseHolds(ctx, first) { // done already: no iteration, and no saved wait to sit out
		return nil
	}
	if !r.goesOn(r.waits.resumeSaved(ctx, first)) {
		return nil
	}
	r.base.take(ctx, r.here.Head)
	for i := first; r.ready(ctx, i); i++ {
		if err := r.iteration(ctx, i); err != nil || r.res.Status != "" {
			return err
		}
	}
	return nil
}

// ready reports whether iteration i starts: no stop condition holds, a limit another loop
// shared is waited out, and a pause is held until resume. Otherwise it sets the status.
func (r *runner) ready(ctx context.Context, i int) bool {
	if status, stop := r.stopBefore(ctx, i); stop {
		r.res.Status = status
		return false
	}
	if !r.goesOn(r.waits.beforeIteration(ctx, i)) {
		return false
	}
	if !r.goesOn(halt{}, r.pause.hold(ctx, r.state, i, false)) { // after a limit's wait: it goes on while paused
		return false
	}
	// the wait or the pause may have lasted hours, during which other loops spent the
	// day's budget (or the day changed): weighed again before the agent costs more
	if status, stop := r.stopBefore(ctx, i); stop {
		r.res.Status = status
		return false
	}
	return true
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
	if h, over := r.budget.over(r.state); over {
		r.res.Cause, r.res.Reason, r.res.Hint = h.cause, h.why, h.hint
		return h.stop, true
	}
	return "", false
}

// goesOn applies how a wait before an iteration ended, and reports whether the run goes
// on: not after Ctrl+C or cancel, nor when the wait would be too long (h).
func (r *runner) goesOn(h halt, end waitEnd) bool {
	if !r.res.waitedOut(end) {
		r.res.Status = StatusInterrupted
		return false
	}
	if h.stop != "" {
		r.res.Status, r.res.Reason, r.res.Hint = h.stop, h.why, h.hint
		return false
	}
	return true
}

// iteration runs iteration i: the agent (again after a limit), then validation, push and
// the measurement of what it changed.
func (r *runner) iteration(ctx context.Context, i int) error {
	spec, injected, err := NextPrompt(r.cfg, PromptFeedback(r.cfg.Feedback, r.state.State))
	if err != nil {
		r.warn(err.Error())
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
	it, err := r.book.begin(r.here, started, r.cfg.MaxOutputBuffer)
	if err != nil {
		return err
	}
	r.state.InIteration = true // saved before the agent starts: see State.InIteration
	if err := r.state.save(); err != nil {
		it.output.close(nil, 0)
		return err
	}
	text := prompt.Text()
	r.report(IterationStarted{Iteration: i, Max: r.cfg.MaxIterations, At: started, Record: it.number, Prompt: r.book.keepPrompt(it.number, prompt, text)})
	a, err := r.attempts(ctx, i, it, text)
	if err != nil {
		it.output.close(nil, 0)
		return err
	}
	if !a.res.Interrupted && a.stop == "" { // an iteration that runs again carries them again
		if err := history.Consume(injected); err != nil {
			r.warn(fmt.Sprintf("cannot remove the injected texts the prompt carried: %v", err))
		}
	}
	return r.finish(ctx, i, it, a)
}

// NextPrompt says what the next iteration's prompt is made of: the prompt files, the
// context, the texts queued with `git ralph inject` (also returned, to be consumed once
// carried), and feedback, the last iteration's validation failure. The queue is read
// fresh each time; an error reading it is returned with the spec that lacks it.
func NextPrompt(cfg Config, feedback string) (prompts.Spec, []history.Injection, error) {
	spec := prompts.Spec{Dir: cfg.Dir, Mode: cfg.Mode, Files: cfg.Prompts, Context: cfg.Context, Feedback: feedback, Task: cfg.Task, Frame: cfg.Template.Prompt}
	injected, err := history.Injections(cfg.Dir)
	for _, in := range injected {
		spec.Injected = append(spec.Injected, prompts.Section{Source: "git ralph inject, " + in.At.Local().Format("15:04:05"), Body: in.Text})
	}
	return spec, injected, err
}

// agentStarted saves the agent's (or the judge's) process group, so that a git-ralph
// killed with -9 can stop it when the loop next starts.
func (r *runner) agentStarted(pgid int) {
	r.state.AgentPGID, r.state.AgentStartedAt = pgid, r.deps.Now()
	r.state.saveOrWarn(r.warn)
}

func (r *runner) report(e Event) { r.deps.Reporter.Report(e) }

// warn reports a Warning: something the user should know that does not stop the run.
func (r *runner) warn(message string) { r.report(Warning{Message: message}) }

// ErrNoAgent means no agent command was configured.
var ErrNoAgent = fmt.Errorf("no agent command configured")

// Validate checks a Config for values the loop cannot run with.
func (c Config) Validate() error {
	switch {
	case strings.TrimSpace(c.AgentCmd) == "" && c.Agent.Program == "" && !c.Agent.InProcess():
		return ErrNoAgent
	case c.runsPreset() && c.Agent.InProcess() && c.API == nil:
		return fmt.Errorf("agent %s talks to a model's API, and no settings for it were given", c.Agent.Name)
	case c.MaxIterations < 0:
		return fmt.Errorf("max iterations must not be negative, got %d", c.MaxIterations)
	case c.Timeout < 0:
		return fmt.Errorf("iteration timeout must be positive, got %s", c.Timeout)
	case c.OutputTimeout < 0:
		return fmt.Errorf("output timeout must be positive, got %s", c.OutputTimeout)
	case c.MaxConsecutiveErrors < 1:
		return fmt.Errorf("max consecutive errors must be at least 1, got %d", c.MaxConsecutiveErrors)
	case c.MaxOutputBuffer < 1:
		return fmt.Errorf("max output buffer must be at least 1 byte, got %d", c.MaxOutputBuffer)
	case c.IdleThreshold < 0:
		return fmt.Errorf("idle threshold must not be negative, got %d", c.IdleThreshold)
	case c.StagnationThreshold < 0 || c.StagnationThreshold == 1:
		return fmt.Errorf("stagnation threshold must be 0 (off) or at least 2, got %d", c.StagnationThreshold)
	case c.StagnationThreshold > 0 && (c.StagnationSimilarity < 1 || c.StagnationSimilarity > 100):
		return fmt.Errorf("stagnation similarity must be between 1 and 100 (percent), got %d", c.StagnationSimilarity)
	case c.Feedback != "" && c.Feedback != FeedbackLast && c.Feedback != FeedbackAll:
		return fmt.Errorf("feedback must be %q or %q, got %q", FeedbackLast, FeedbackAll, c.Feedback)
	}
	return nil
}
