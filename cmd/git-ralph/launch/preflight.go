package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts"
)

// AcquireLock takes the repository's single-instance lock, kept in the git directory
// where the agent cannot commit it; another holder's is an exitcode.Error of exitcode.Busy.
func AcquireLock(ctx context.Context, root string) (*history.Lock, error) {
	path, err := LockPath(ctx, root)
	if err != nil {
		return nil, err
	}
	lock, err := history.Acquire(path, history.ThisProcess(time.Now()))
	if errors.Is(err, history.ErrLocked) {
		return nil, &exitcode.Error{Code: exitcode.Busy, Err: err}
	}
	return lock, err
}

// LockPath is where the repository's lock lives: in the git directory, where the agent
// cannot commit it.
func LockPath(ctx context.Context, root string) (string, error) {
	return gitops.GitPath(ctx, root, history.LockFile)
}

// RepoRoot finds the work tree the command runs in: the one of the current directory.
func RepoRoot(ctx context.Context) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the current directory: %w", err)
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

// Preflight checks what dry-run checks, so a run fails before its first iteration rather
// than after spending one.
func Preflight(ctx context.Context, set *Settings) error {
	cfg := set.Loop
	if err := cfg.Validate(); err != nil {
		return Explain(err)
	}
	if _, err := prompts.Assemble(prompts.Spec{Dir: cfg.Dir, Mode: cfg.Mode, Files: cfg.Prompts, Task: cfg.Task, Frame: cfg.Template.Prompt}); err != nil {
		return Explain(err)
	}
	if check, any := set.CheckAgent(); any && !check.OK {
		return hints.Wrap(errors.New(check.Problem), "%s", check.Hint)
	}
	if err := set.JudgeProblem(); err != nil {
		return err
	}
	return PreflightPush(ctx, set)
}

// PreflightPush checks that auto-push has somewhere to go, when it is on.
func PreflightPush(ctx context.Context, set *Settings) error {
	if !set.Loop.Push {
		return nil
	}
	target, err := gitpush.ResolveTarget(ctx, set.Loop.Dir, set.Loop.Remote, set.Loop.Branch)
	if err != nil {
		return explainPush(err, set.Resolved)
	}
	set.PushTarget = target.String()
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

// Explain adds the hint that fits a known error.
func Explain(err error) error {
	var h interface{ Hint() string }
	switch {
	case errors.As(err, &h):
		return err
	case errors.Is(err, loop.ErrNoAgent):
		return hints.Wrap(err, "pick a preset with --agent claude (or agent = \"claude\" in .ralph/config.toml), or give your own command with --agent-cmd")
	}
	return err
}
