package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/rollback"
	"github.com/git-ralph/git-ralph/history"
)

// RollbackCmd is `git ralph rollback`.
type RollbackCmd struct {
	Target   string `arg:"" optional:"" name:"N|initial|LABEL" help:"The iteration to undo, with every one after it; 'initial' goes back to before the last run's first iteration; a checkpoint's name goes back to it."`
	Undo     string `placeholder:"BACKUP" help:"Undo a rollback: put back the HEAD and work tree kept in the backup it printed."`
	Force    bool   `help:"Roll back even if that overwrites or deletes uncommitted work (ignored files included); it is kept in the backup ref first."`
	LoopFlag `embed:""`
}

// Run brings the branch, the index and the work tree back to the checkpoint taken before
// iteration N (or, with --undo, to what a rollback replaced), after keeping everything it
// overwrites or deletes in a backup ref. It holds the repository's lock meanwhile, so no
// loop starts under it.
func (c *RollbackCmd) Run(ctx context.Context, s Streams) error {
	if (c.Target == "") == (c.Undo == "") {
		return hints.Wrap(errors.New("name either an iteration, a checkpoint or --undo BACKUP"),
			"e.g. 'git ralph rollback 3', 'git ralph rollback before-refactor', or 'git ralph rollback --undo 20261121T200506Z'")
	}
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	if err := history.CheckOwnDirs(root); err != nil { // before anything changes, not after
		return err
	}
	lock, err := holdForRollback(ctx, root)
	if err != nil {
		return err
	}
	defer lock.Release()
	goal, err := c.goal(ctx, root, s)
	if err != nil {
		return err
	}
	done, err := rollback.Apply(ctx, root, goal, c.Force, time.Now())
	if err != nil {
		return err
	}
	reportRollback(ctx, root, s, done)
	return nil
}

func (c *RollbackCmd) goal(ctx context.Context, root string, s Streams) (rollback.Goal, error) {
	if c.Undo != "" {
		return rollback.ToBackup(ctx, root, c.Undo)
	}
	return rollback.To(ctx, root, c.Target, func(warning string) {
		fmt.Fprintf(s.Stderr, "warning: %s\n", warning)
	})
}

// holdForRollback takes the lock a loop takes, refusing (exit 75) while one runs.
func holdForRollback(ctx context.Context, root string) (*history.Lock, error) {
	lock, err := launch.AcquireLock(ctx, root)
	var locked *history.LockedError
	if errors.As(err, &locked) {
		who := ""
		if h := locked.Holder; h.PID != 0 {
			who = fmt.Sprintf(" (pid %d on host %s since %s)", h.PID, h.Host, display.LocalTime(h.Since))
		}
		return nil, &exitcode.Error{Code: exitcode.Busy, Err: hints.Wrap(fmt.Errorf("a loop is running in this repository%s: not rolling back under it", who),
			"wait for it to finish, or stop it with 'git ralph cancel', then roll back")}
	}
	return lock, err
}

// reportRollback says where the rollback went, what it restored, where the previous
// state is kept and how to undo it.
func reportRollback(ctx context.Context, root string, s Streams, done rollback.Done) {
	plan := done.Plan
	to := "a branch with no commit yet"
	if plan.Target.Head != "" {
		to = display.ShortHash(plan.Target.Head)
	}
	fmt.Fprintf(s.Stdout, "rolled back to %s (%s); previous HEAD and work tree kept at %s\n", to, done.What, done.BackupRef)
	if n := len(plan.Changed); n > 0 {
		fmt.Fprintf(s.Stdout, "work tree: %s restored\n", display.Plural(n, "file"))
	}
	// Only a summary: an error reading it changes nothing of what was done.
	if left, err := plan.UncommittedAtTarget(ctx, root); err == nil && len(left) > 0 {
		fmt.Fprintf(s.Stdout, "uncommitted then, uncommitted again: %s ('git status' lists them)\n", display.Plural(len(left), "file"))
	}
	switch {
	case done.Restaged:
		fmt.Fprintln(s.Stdout, "staged changes: staged again as they were")
	case done.StagedKept:
		fmt.Fprintln(s.Stdout, "staged changes: kept in the backup too; the undo stages them again")
	}
	fmt.Fprintf(s.Stdout, "undo with: git ralph rollback --undo %s\n", done.BackupName)
}
