package main

import (
	"context"
	"errors"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts"
)

const defaultMode = "build"

// LoopCmd is `git ralph loop`.
type LoopCmd struct {
	Mode                 string         `help:"Mode: plan, build, or any NAME with a PROMPT_NAME.md (default: build)." placeholder:"MODE"`
	Max                  *int           `help:"Stop after N iterations (default: 5)." placeholder:"N"`
	Unlimited            bool           `help:"No iteration limit (--max still wins)."`
	AgentCmd             string         `name:"agent-cmd" help:"The agent command, run with 'sh -c' in the repository root; the prompt arrives on stdin." placeholder:"CMD"`
	Timeout              *time.Duration `help:"Stop an iteration that runs longer than DUR, e.g. 30m (default: none)." placeholder:"DUR"`
	MaxConsecutiveErrors *int           `name:"max-consecutive-errors" help:"Abort after N failed iterations in a row (default: 3)." placeholder:"N"`
	MaxOutputBuffer      string         `name:"max-output-buffer" help:"Keep the last SIZE of the agent's output to scan for promise tags (default: 10MiB)." placeholder:"SIZE"`
	IdleThreshold        *int           `name:"idle-threshold" help:"Stop (exit 3) after N iterations in a row that change nothing in git; 0 never stops (default: 2)." placeholder:"N"`
	Fresh                bool           `help:"Start a new run even if the last one is unfinished."`
	Context              string         `help:"Extra text added to every iteration's prompt under '## Context'." placeholder:"TEXT"`
	DryRun               bool           `name:"dry-run" help:"Check the prompt and the agent, show the settings and the prompt, run nothing."`
	Verbose              bool           `short:"v" help:"Stream the agent's output live."`
	Quiet                bool           `short:"q" help:"Print only failed iterations, warnings and errors."`
}

// Run resolves the settings, then does a dry run or drives the loop; the exit code
// follows the run's status.
func (c *LoopCmd) Run(ctx context.Context, s Streams, in *interrupts) error {
	if c.Verbose && c.Quiet {
		return withHint(errors.New("--verbose and --quiet contradict each other"), "pick one")
	}
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	cfg, settings, err := c.resolve(root)
	if err != nil {
		return err
	}
	if c.DryRun {
		return dryRun(s, cfg, settings)
	}
	if err := preflight(cfg); err != nil {
		return err
	}
	lock, err := acquireLock(ctx, root)
	if err != nil {
		return err
	}
	defer lock.Release()
	deps := loop.Deps{Reporter: newProgress(s.Stderr, c.Quiet), Hurry: in.hurry, Finish: in.finish}
	if c.Verbose {
		deps.Live = s.Stdout
	}
	res, err := loop.Run(ctx, cfg, deps)
	if err != nil {
		return &exitError{code: 1, err: explain(err)}
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
		return "", withHint(err, "run git-ralph inside a git work tree, or 'git init' one first")
	case errors.Is(err, gitops.ErrGitMissing):
		return "", withHint(err, "install git; git-ralph runs as 'git ralph'")
	}
	return root, err
}

// preflight checks what dry-run checks, so a run fails before its first iteration rather
// than after spending one.
func preflight(cfg loop.Config) error {
	if err := cfg.Validate(); err != nil {
		return explain(err)
	}
	if _, err := prompts.Assemble(prompts.Spec{Dir: cfg.Dir, Mode: cfg.Mode, Context: cfg.Context}); err != nil {
		return explain(err)
	}
	if check := checkAgentProgram(cfg.Dir, cfg.AgentCmd); !check.ok {
		return withHint(errors.New(check.problem), "%s", check.hint)
	}
	return nil
}

// explain adds the hint that fits a known error.
func explain(err error) error {
	var h interface{ Hint() string }
	switch {
	case errors.As(err, &h):
		return err
	case errors.Is(err, loop.ErrNoAgent):
		return withHint(err, "pass the agent command, e.g. --agent-cmd 'claude -p --dangerously-skip-permissions'")
	}
	return err
}
