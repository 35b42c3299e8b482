package main

import (
	"context"
	"errors"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
)

// StatusCmd is `git ralph status`.
type StatusCmd struct {
	JSON     bool `name:"json" help:"Print the status as one JSON object."`
	Watch    bool `name:"watch" help:"Redraw the status every second until the loop ends (on a terminal; elsewhere print each change once)."`
	LoopFlag `embed:""`
}

// Run reads the state and the lock and prints them.
func (c *StatusCmd) Run(ctx context.Context, s Streams) error {
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	// finish or undo what a killed merge left, as 'runs' and 'merge' do
	// (mergequeue.Recover): a merge half landed, or a work tree with the base checked
	// out whose index stayed behind the branch, which a 'git commit -a' there would
	// turn into the merge's undoing; each thing done is said on stderr, and a failure
	// to look is no failure of status
	recoverMerges(ctx, s, root)
	path, err := launch.LockPath(ctx, root)
	if err != nil {
		return err
	}
	if c.Watch {
		if c.JSON {
			return hints.Wrap(errors.New("--watch redraws the status for a person; --json prints it once for a program"), "drop one of them")
		}
		return status.Watch(ctx, s.Stdout, root, path, reporting.IsTerminal(s.Stdout), time.Second)
	}
	st, err := status.Load(ctx, root, path)
	if err != nil {
		return err
	}
	st.Place = status.LoopAt(ctx, root)
	if c.JSON {
		return display.JSON(s.Stdout, st)
	}
	if err := status.Print(s.Stdout, st, time.Now()); err != nil {
		return err
	}
	status.PrintMerge(ctx, s.Stdout, root)
	return nil
}
