package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts"
)

// LoopCmd is `git ralph loop`.
type LoopCmd struct {
	Task                 string         `arg:"" optional:"" help:"The task, e.g. \"fix the failing tests\": it goes into the mode's prompt (see docs/guide/tasks-templates-workflows.md), or into a built-in prompt when PROMPT_<mode>.md does not exist. Saved with the run: a resumed run keeps it." placeholder:"TASK"`
	TaskFile             string         `name:"task-file" help:"Read the task from FILE." placeholder:"FILE"`
	Mode                 string         `help:"Mode: plan, build, or any NAME with a PROMPT_NAME.md (default: build)." placeholder:"MODE"`
	Max                  *int           `help:"Stop after N iterations (default: 5)." placeholder:"N"`
	Unlimited            *bool          `help:"No iteration limit (--max still wins); --unlimited=false brings a limit back over a config file's unlimited = true."`
	Agent                string         `help:"A built-in agent preset: claude, codex, gemini, opencode, aider, cursor-agent, copilot, amp, kiro-cli, qwen, pi." placeholder:"NAME"`
	AgentCmd             string         `name:"agent-cmd" help:"Your own agent command, run with 'sh -c' in the repository root; the prompt arrives on stdin. With --agent, that preset reads its output." placeholder:"CMD"`
	Timeout              *time.Duration `help:"Stop an iteration that runs longer than DUR, e.g. 30m (default: none)." placeholder:"DUR"`
	OutputTimeout        *time.Duration `name:"output-timeout" help:"Stop an agent that prints nothing for DUR, e.g. 10m (default: none, or the preset's)." placeholder:"DUR"`
	MaxConsecutiveErrors *int           `name:"max-consecutive-errors" help:"Abort after N failed iterations in a row (default: 3)." placeholder:"N"`
	MaxOutputBuffer      string         `name:"max-output-buffer" help:"Keep the last SIZE of the agent's output to scan for promise tags (default: 10MiB)." placeholder:"SIZE"`
	IdleThreshold        *int           `name:"idle-threshold" help:"Stop (exit 3) after N iterations in a row that change nothing in git; 0 never stops (default: 2)." placeholder:"N"`
	MaxCost              string         `name:"max-cost" help:"Stop the run (exit 5) before an iteration its spend so far plus the expected cost would take past USD dollars, as the agent reports cost (default: none)." placeholder:"USD"`
	MaxTokens            *int           `name:"max-tokens" help:"Stop the run (exit 5) before an iteration that would take its input+output tokens past N (default: none)." placeholder:"N"`
	DailyMaxCost         string         `name:"daily-max-cost" help:"Stop (exit 5) before an iteration that would take today's spend of all your loops on this machine past USD dollars (default: none)." placeholder:"USD"`
	StagnationThreshold  *int           `name:"stagnation-threshold" help:"After N iterations in a row that repeat the same attempt, tell the agent so in the next prompt, and stop (exit 6) if it goes on; 0 turns the check off (default: 3)." placeholder:"N"`
	StagnationSimilarity *int           `name:"stagnation-similarity" help:"How alike, in percent (of words, of lines), two iterations' final messages and validation failures must be to count as the same (default: 90)." placeholder:"PCT"`
	Validate             string         `help:"A command run after each iteration (e.g. 'make test'); its failure goes into the next prompt, and SUCCESS counts only when it passes." placeholder:"CMD"`
	Until                string         `help:"The promise command (e.g. 'npm test'): after each iteration whose validation passed, the loop is done (exit 0) as soon as it passes (with --judge, after its PASS), whatever the agent printed; while it fails, its output goes into the next prompt and SUCCESS alone does not end the loop." placeholder:"CMD"`
	Template             string         `help:"Use a loop template (see 'git ralph templates'): its prompt, with the task in it, replaces PROMPT_<mode>.md, and its iteration limit applies unless one is set." placeholder:"NAME"`
	Feedback             string         `help:"What the next prompt carries of the run's failures: last (the last iteration's, the default) or all (every one so far, newest first, within 32 KiB)." placeholder:"WHICH"`
	Judge                string         `help:"An agent preset or a command that judges each iteration whose validation passed, answering <verdict>PASS</verdict> or FAIL with reasons; FAIL goes into the next prompt and SUCCESS counts only after PASS." placeholder:"PRESET|CMD"`
	Push                 *bool          `negatable:"" help:"Push the branch after each iteration that moved HEAD and passed validation (default: off)."`
	Notify               string         `help:"Say when the loop ends, stops on a limit or an error, or its merge needs review: a comma-separated list of desktop, bell and webhook URLs, or none (default: none)." placeholder:"LIST"`
	Fresh                bool           `help:"Start a new run even if the last one is unfinished."`
	Context              string         `help:"Extra text added to every iteration's prompt under '## Context'." placeholder:"TEXT"`
	Prompt               string         `help:"Use FILE (inside the repository) as the prompt instead of the mode's PROMPT_<mode>.md; a workflow's stage with prompt = FILE runs this way." placeholder:"FILE"`
	DryRun               bool           `name:"dry-run" help:"Check the prompt and the agent, show the settings and the prompt, run nothing."`
	Verbose              Verbose        `short:"v" help:"Stream the agent's output live, rendered for reading: its text, a line per tool call and its result's size or exit status, errors, tokens and cost. --verbose=raw streams it as the agent prints it (a preset's JSON)."`
	Quiet                bool           `short:"q" help:"Print only failed iterations, warnings and errors; the structured log keeps only warnings and errors too, unless --log-level is given."`
	LogLevel             string         `name:"log-level" help:"The lowest level the structured log (.ralph/logs/ralph.log) keeps: debug, info, warn or error (default: info)." placeholder:"LEVEL"`
	JSON                 bool           `name:"json" help:"Write one JSON event per line on stdout (see docs/reference/events.md); progress lines go to stderr."`
	SkipIfBusy           bool           `name:"skip-if-busy" help:"Exit 75 without a word when another loop holds the repository (for cron)."`
	Worktree             string         `help:"Run the loop in a linked worktree of its own on branch ralph/NAME, beside the main work tree; created at the first run, resumed after." placeholder:"NAME"`
	Base                 string         `help:"With --worktree: the revision a new loop's branch starts from (default: HEAD)." placeholder:"REV"`
	Merge                bool           `help:"With --worktree: when the loop ends with SUCCESS, merge its branch through the merge queue (as 'git ralph merge NAME'); with --best-of: merge the winner."`
	Record               string         `help:"Keep every run of the agent (prompt, timed output, exit status, usage, and its change to the repository) in DIR, to play back with --agent replay:DIR." placeholder:"DIR"`
	ReplaySpeed          string         `name:"replay-speed" help:"With --agent replay:DIR: full (default), recorded, or a multiple of the recorded pace such as 2." placeholder:"SPEED"`
	ReplayForce          bool           `name:"replay-force" help:"With --agent replay:DIR: replay a recording made in another repository."`
	BestOfFlags          `embed:""`
	// StageSettings are a workflow stage's bounded settings (config.WorkflowSetting): the
	// repository's, not the user's flags, so that they tighten the user's limits and
	// never loosen them. Only `workflow run` passes them.
	StageSettings []string `name:"workflow-setting" hidden:"" sep:"none" help:"A bounded setting of a workflow's stage (FILE:LINE:FIELD:KEY=VALUE): the repository's, not yours."`
}

// Run resolves the settings, then does a dry run or drives the loop; the exit code
// follows the run's status.
func (c *LoopCmd) Run(ctx context.Context, s Streams, in *interrupts) error {
	if c.Verbose.on() && c.Quiet {
		return hints.Wrap(errors.New("--verbose and --quiet contradict each other"), "pick one")
	}
	if c.Merge && c.Worktree == "" && c.BestOf == nil {
		return hints.Wrap(errors.New("--merge needs --worktree"), "a loop in a worktree of its own has a branch to merge: --worktree NAME --merge")
	}
	if c.JSON && c.DryRun {
		return hints.Wrap(errors.New("--dry-run has no JSON form"), "drop --json to see the settings and the prompt")
	}
	if c.Record != "" && c.BestOf != nil {
		return hints.Wrap(errors.New("--record keeps one loop's runs, and --best-of runs several"), "record one loop at a time: drop --best-of, or --record")
	}
	if err := c.checkBestOf(); err != nil {
		return err
	}
	if c.BestOf != nil {
		return c.runBestOf(ctx, s, in)
	}
	here, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	root, where, err := c.worktreeLoop(ctx, s, here)
	if err != nil {
		return err
	}
	set, err := c.resolve(root)
	if err != nil {
		return err
	}
	set.trustedAt = where.trustedAt
	warnSettings(s.Stderr, set.resolved)
	if err := c.checkReplay(ctx, set); err != nil {
		return err
	}
	if c.DryRun {
		return dryRun(ctx, s, set)
	}
	if err := preflight(ctx, set); err != nil {
		err = c.inWorktree(err)
		if !stoppedByInterrupt(ctx, err) { // an interrupt is no failure to notify of
			c.startFailed(s, root, set, err)
		}
		return err
	}
	if err := requireTrust(s, root, set.resolved, set.trustedAt...); err != nil {
		return err
	}
	cfg := set.loop
	lock, err := acquireLock(ctx, root)
	if err != nil {
		if c.SkipIfBusy && errors.Is(err, history.ErrLocked) {
			return exitCode(exitBusy)
		}
		return err
	}
	defer lock.Release()
	if cfg.PauseFile, err = pausePath(ctx, root); err != nil {
		return err
	}
	where.say(s.Stderr) // after the lock: --skip-if-busy exits without a word
	if cfg.Record, err = c.recorder(ctx, set); err != nil {
		return err
	}
	out := c.outputs(s, root, set, in)
	defer out.close()
	res, err := loop.Run(ctx, cfg, out.deps(in))
	if err != nil {
		if !stoppedByInterrupt(ctx, err) { // interrupted while it read the repository: exit 130, no failure
			out.failed(err)
		}
		return &exitError{code: 1, err: explain(err)}
	}
	if c.Merge && res.Status.ExitCode() == 0 {
		return c.queueMerge(ctx, s, here, set.resolved, out.notes)
	}
	return exitCode(res.Status.ExitCode())
}

// exitBusy is the exit code when another loop holds the repository (EX_TEMPFAIL).
const exitBusy = 75

// acquireLock takes the repository's single-instance lock, kept in the git directory
// where the agent cannot commit it.
func acquireLock(ctx context.Context, root string) (*history.Lock, error) {
	path, err := lockPath(ctx, root)
	if err != nil {
		return nil, err
	}
	lock, err := history.Acquire(path, history.ThisProcess(time.Now()))
	if errors.Is(err, history.ErrLocked) {
		return nil, &exitError{code: exitBusy, err: err}
	}
	return lock, err
}

// lockPath is where the repository's lock lives: in the git directory, where the agent
// cannot commit it.
func lockPath(ctx context.Context, root string) (string, error) {
	return gitops.GitPath(ctx, root, "ralph.lock")
}

// repoRoot finds the work tree the loop runs in.
func repoRoot(ctx context.Context) (string, error) {
	dir, err := workDir()
	if err != nil {
		return "", err
	}
	root, err := gitops.Root(ctx, dir)
	switch {
	case errors.Is(err, gitops.ErrNotRepo):
		return "", hints.Wrap(err, "run git-ralph inside a git work tree, or 'git init' one first")
	case errors.Is(err, gitops.ErrGitMissing):
		return "", hints.Wrap(err, "install git; git-ralph runs as 'git ralph'")
	}
	return root, err
}

// preflight checks what dry-run checks, so a run fails before its first iteration rather
// than after spending one.
func preflight(ctx context.Context, set *settings) error {
	cfg := set.loop
	if err := cfg.Validate(); err != nil {
		return explain(err)
	}
	if _, err := prompts.Assemble(prompts.Spec{Dir: cfg.Dir, Mode: cfg.Mode, Files: cfg.Prompts, Task: cfg.Task, Frame: cfg.Template.Prompt}); err != nil {
		return explain(err)
	}
	if check, any := set.checkAgent(); any && !check.OK {
		return hints.Wrap(errors.New(check.Problem), "%s", check.Hint)
	}
	if err := set.judgeProblem(); err != nil {
		return err
	}
	return preflightPush(ctx, set)
}

// preflightPush checks that auto-push has somewhere to go, when it is on.
func preflightPush(ctx context.Context, set *settings) error {
	if !set.loop.Push {
		return nil
	}
	target, err := gitpush.ResolvePushTarget(ctx, set.loop.Dir, set.loop.Remote, set.loop.Branch)
	if err != nil {
		return explainPush(err, set.resolved)
	}
	set.pushTarget = target.String()
	return nil
}

// explainPush turns a push target that cannot work into an error with a hint, before
// any iteration runs.
func explainPush(err error, c *config.Config) error {
	switch {
	case errors.Is(err, gitops.ErrDetached):
		return hints.Wrap(fmt.Errorf("push is on (%s) but %w", c.Push.Origin, err), "check out a branch, or run without --push")
	case errors.Is(err, gitpush.ErrNoRemote):
		return hints.Wrap(fmt.Errorf("push is on (%s) but there is %w", c.Push.Origin, err), "add the remote with 'git remote add', or set remote in .ralph/config.toml")
	}
	return err
}

// explain adds the hint that fits a known error.
func explain(err error) error {
	var h interface{ Hint() string }
	switch {
	case errors.As(err, &h):
		return err
	case errors.Is(err, loop.ErrNoAgent):
		return hints.Wrap(err, "pick a preset with --agent claude (or agent = \"claude\" in .ralph/config.toml), or give your own command with --agent-cmd")
	}
	return err
}
