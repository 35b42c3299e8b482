package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/rollback"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
)

// CheckpointCmd is `git ralph checkpoint`.
type CheckpointCmd struct {
	Label    string `arg:"" optional:"" name:"LABEL" help:"The checkpoint's name (letters, digits, '.', '_', '-'; not a number, not 'initial'); the UTC time stamp by default."`
	Message  string `short:"m" help:"A note to list with it; the subject of HEAD's commit by default."`
	Force    bool   `help:"Replace the checkpoint of that name, if there is one."`
	LoopFlag `embed:""`
}

// Run records HEAD and the work tree (uncommitted and untracked files included) under a
// label that 'git ralph rollback LABEL' returns to. It needs no lock: it changes nothing
// but a ref under refs/ralph/, so it may run beside a loop, and says so.
func (c *CheckpointCmd) Run(ctx context.Context, s Streams) error {
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	if err := history.CheckOwnDirs(root); err != nil {
		return err
	}
	cp, err := rollback.Take(ctx, root, c.Label, c.Message, c.Force, time.Now())
	if err != nil {
		return err
	}
	tree := "clean work tree"
	if cp.Dirty {
		tree = "with uncommitted changes"
	}
	at := "a branch with no commit yet"
	if cp.Commit != "" {
		at = display.ShortHash(cp.Commit)
	}
	fmt.Fprintf(s.Stdout, "checkpoint %s: %s, %s (kept at %s)\n", cp.Label, at, tree, cp.Ref)
	if holder, err := status.RunningLoop(ctx, root); err == nil {
		fmt.Fprintf(s.Stdout, "note: a loop is running here (pid %d): the checkpoint holds the work tree as it is now, in the middle of an iteration\n", holder.PID)
	}
	loop := ""
	if c.Loop != "" {
		loop = " --loop " + c.Loop
		if rollback.CheckLabel(c.Loop) != nil {
			loop = " --loop " + display.ShellQuote(c.Loop) // a name a shell would split
		}
	}
	fmt.Fprintf(s.Stdout, "return with: git ralph rollback%s %s\n", loop, cp.Label)
	return nil
}

// CheckpointsCmd is `git ralph checkpoints`.
type CheckpointsCmd struct {
	JSON     bool `name:"json" help:"Print the checkpoints as a JSON array, oldest first."`
	LoopFlag `embed:""`
}

// Run lists the named checkpoints of the work tree, oldest first.
func (c *CheckpointsCmd) Run(ctx context.Context, s Streams) error {
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	list, err := rollback.List(ctx, root)
	if err != nil {
		return err
	}
	if c.JSON {
		return display.JSON(s.Stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(s.Stdout, "no checkpoints yet ('git ralph checkpoint LABEL' takes one)")
		return nil
	}
	return printCheckpoints(s.Stdout, list)
}

func printCheckpoints(w io.Writer, list []rollback.Checkpoint) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LABEL\tTIME\tCOMMIT\tWORK TREE\tMESSAGE")
	for _, cp := range list {
		commit, tree := "-", "clean"
		if cp.Commit != "" {
			commit = display.ShortHash(cp.Commit)
		}
		if cp.Dirty {
			tree = "dirty"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cp.Label, display.LocalTime(cp.Time), commit, tree, display.Printable(cp.Message))
	}
	return tw.Flush()
}
