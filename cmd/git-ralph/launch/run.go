package launch

import (
	"context"
	"errors"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/notify"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
)

// Loop is one `git ralph loop` to start: what it was given, where its lines go, the
// signals it obeys and the approvals it needs.
type Loop struct {
	Options
	Streams
	Signals Signals
	Trust   Trust
	// Merge, when set (--merge), merges the loop's branch once the loop ended with
	// SUCCESS; here is the work tree the command started in, resolved the loop's settings,
	// notes its notifier (still open).
	Merge func(ctx context.Context, here string, resolved *config.Config, notes *notify.Notifier) error
	// Interrupted reports whether err is what became of a loop that SIGINT or SIGTERM
	// stopped: no failure to notify of (nil: never).
	Interrupted func(ctx context.Context, err error) bool
}

// Run resolves the settings, then does a dry run or drives the loop; the exitcode.Error it
// returns carries the run's status's exit code.
func (l *Loop) Run(ctx context.Context) error {
	st, err := l.check(ctx)
	if err != nil || st == nil { // nil: the dry run was all
		return err
	}
	lock, err := AcquireLock(ctx, st.root)
	if err != nil {
		if l.SkipIfBusy && errors.Is(err, history.ErrLocked) {
			return exitcode.Quiet(exitcode.Busy)
		}
		return err
	}
	defer lock.Release()
	Started()
	return l.drive(ctx, st.here, st.root, st.where, st.set)
}

// checked is a loop whose settings, preflight and approvals passed: where it runs.
type checked struct {
	here, root string
	where      Place
	set        *Settings
}

// check resolves the settings and runs the preflight and the trust check, or the dry
// run (then nil).
func (l *Loop) check(ctx context.Context) (*checked, error) {
	here, err := RepoRoot(ctx)
	if err != nil {
		return nil, err
	}
	root, where, err := WorktreeLoop(ctx, l.Stdout, here, &l.Options)
	if err != nil {
		return nil, err
	}
	set, err := Resolve(root, &l.Options)
	if err != nil {
		return nil, err
	}
	set.TrustedAt = where.TrustedAt
	set.Loop.BaseBranch = where.BaseBranch
	WarnSettings(l.Stderr, set.Resolved)
	if err := checkReplay(ctx, &l.Options, set); err != nil {
		return nil, err
	}
	if l.DryRun {
		return nil, dryRun(ctx, l.Stdout, l.Trust, set)
	}
	if err := Preflight(ctx, set); err != nil {
		err = l.inWorktree(err)
		if !l.interrupted(ctx, err) { // an interrupt is no failure to notify of
			l.startFailed(root, set, err)
		}
		return nil, err
	}
	if err := l.Trust.Require(root, set.Resolved, set.TrustedAt...); err != nil {
		return nil, err
	}
	return &checked{here: here, root: root, where: where, set: set}, nil
}

// drive runs the loop that holds the lock, reporting to its outputs, and merges its
// branch after a SUCCESS when asked to.
func (l *Loop) drive(ctx context.Context, here, root string, where Place, set *Settings) error {
	cfg := set.Loop
	var err error
	if cfg.PauseFile, err = gitops.GitPath(ctx, root, history.PauseFile); err != nil {
		return err
	}
	where.say(l.Stderr) // after the lock: --skip-if-busy exits without a word
	if cfg.Record, err = recorder(ctx, &l.Options, set); err != nil {
		return err
	}
	out := l.outputs(root, set)
	defer out.close()
	res, err := loop.Run(ctx, cfg, out.deps(l.Signals))
	if err != nil {
		if !l.interrupted(ctx, err) { // interrupted while it read the repository: exit 130, no failure
			out.failed(err)
		}
		return &exitcode.Error{Code: exitcode.Failure, Err: Explain(err)}
	}
	if l.Merge != nil && res.Status.ExitCode() == exitcode.OK {
		return l.Merge(ctx, here, set.Resolved, out.notes)
	}
	return exitcode.Quiet(res.Status.ExitCode())
}

func (l *Loop) interrupted(ctx context.Context, err error) bool {
	return l.Interrupted != nil && l.Interrupted(ctx, err)
}
