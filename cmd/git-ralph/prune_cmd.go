package main

import (
	"context"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// PruneCmd is `git ralph prune`.
type PruneCmd struct {
	Force bool `help:"Also remove what no commit keeps in a gone loop's worktree, and what sits in the worktrees' directory without being a worktree."`
}

// Run removes the loops that are gone and says what it left alone.
func (c *PruneCmd) Run(ctx context.Context, s Streams) error {
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	if err := recoverMerges(ctx, s, here); err != nil { // its scratch worktree, its entry
		return err
	}
	p, err := fleet.Prune(ctx, here, c.Force, time.Now())
	if err != nil {
		return err
	}
	for _, d := range p.Discarded {
		printDiscarded(s, d)
	}
	for _, name := range p.Forgotten {
		fmt.Fprintf(s.Stdout, "Forgot the discarded loop %s.\n", name)
	}
	for _, path := range p.Removed {
		fmt.Fprintf(s.Stdout, "Removed %s (--force).\n", display.Printable(path))
	}
	for _, left := range p.Left {
		fmt.Fprintf(s.Stdout, "Left alone: %s\n", display.PrintableText(left))
	}
	if len(p.Discarded)+len(p.Forgotten)+len(p.Removed)+len(p.Left)+len(p.Refused) == 0 {
		fmt.Fprintln(s.Stdout, "Nothing to prune.")
	}
	for _, e := range p.Refused {
		report(s.Stderr, e)
	}
	if len(p.Refused) > 0 {
		return exitcode.Quiet(exitcode.Failure)
	}
	return nil
}
