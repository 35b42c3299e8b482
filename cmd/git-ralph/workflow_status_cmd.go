package main

import (
	"context"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/workflowview"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// WorkflowStatusCmd is `git ralph workflow status NAME`.
type WorkflowStatusCmd struct {
	Name string `arg:"" help:"The workflow: .ralph/workflows/NAME.toml."`
	JSON bool   `name:"json" help:"Print the stages as JSON (see docs/reference/events.md)."`
}

// Run prints the stages in order, their states, and the next step.
func (c *WorkflowStatusCmd) Run(ctx context.Context, s Streams) error {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	wf, err := workflow.Load(root, c.Name)
	if err != nil {
		return err
	}
	state, err := history.LoadWorkflow(root, wf.Name)
	if err != nil {
		return err
	}
	view := workflowview.New(wf, &state)
	if c.JSON {
		return display.JSON(s.Stdout, view)
	}
	return workflowview.Print(s.Stdout, view)
}
