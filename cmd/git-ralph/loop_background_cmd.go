package main

import (
	"context"
	"fmt"
	"os"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// background starts the loop (or the best-of) as a detached child of the same command
// line, once this process has checked what the start would check.
func (c *LoopCmd) background(ctx context.Context, s Streams, in *interrupts) error {
	if c.BestOf == nil {
		return c.loop(s, in).Background(ctx, os.Args[1:])
	}
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	child, err := candidateLoop(c)
	if err != nil {
		return err
	}
	b := &launch.BestOf{Streams: s.launch(), Trust: s.terminal(), Name: c.Worktree, N: *c.BestOf,
		Jobs: c.Jobs, Score: c.Score, Child: child, Options: *c.options()}
	return b.Background(ctx, here, os.Args[1:])
}

// background starts the workflow's run as a detached child of the same command line,
// once this process has checked the file and the approvals of its commands.
func (c *WorkflowRunCmd) background(ctx context.Context, s Streams, root string, wf *workflow.Workflow) error {
	if err := launch.CanDetach(); err != nil {
		return err
	}
	b := &launch.Background{Streams: s.launch(), Here: root, Name: "workflow-" + wf.Name, Args: os.Args[1:],
		Commands: func(pid int) [][2]string {
			return [][2]string{{"status", "git ralph workflow status " + wf.Name}, {"runs", "git ralph runs"},
				{"cancel", fmt.Sprintf("kill %d (as Ctrl+C: the running stages stop)", pid)}}
		}}
	return b.Run(ctx)
}
