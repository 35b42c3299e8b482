package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/loop/mergequeue"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// WorkflowCmd is `git ralph workflow`: the stages of .ralph/workflows/NAME.toml.
type WorkflowCmd struct {
	Run    WorkflowRunCmd    `cmd:"" help:"Run the stages of .ralph/workflows/NAME.toml in dependency order, each a loop; resume where an interrupted run stopped. Exit 7 when a stage awaits approval."`
	Status WorkflowStatusCmd `cmd:"" help:"Show the stages of a workflow, their states and iterations, and what to do next."`
	Trust  WorkflowTrustCmd  `cmd:"" help:"Approve the commands a workflow file would run (agents, validate, until, judge, on_complete, on_failure)."`
}

// WorkflowRunCmd is `git ralph workflow run NAME`.
type WorkflowRunCmd struct {
	Name     string   `arg:"" help:"The workflow: .ralph/workflows/NAME.toml."`
	Agent    string   `help:"The agent preset of every stage, over the stages' own agent." placeholder:"NAME"`
	AgentCmd string   `name:"agent-cmd" help:"Your own agent command for every stage, over the stages' own." placeholder:"CMD"`
	Set      []string `sep:"none" help:"Fill {{KEY}} in the stages' task and context with VALUE (repeatable): one workflow file for many tasks. A run resumes only with the values it started with." placeholder:"KEY=VALUE"`
	Notify   string   `help:"Where to say that a stage awaits approval (as loop --notify); default: the notify setting." placeholder:"LIST"`
	// Background runs the workflow detached, as loop --background does.
	Background bool `short:"b" help:"Run in the background: checked here first, then detached (output appended to .ralph/logs/background-workflow-NAME.log); prints its pid and how to follow and stop it, and returns at once."`
}

// Run runs the workflow's stages (launch.Workflow) once their commands are approved,
// and exits with the workflow's code.
func (c *WorkflowRunCmd) Run(ctx context.Context, s Streams, in *interrupts) error {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	params, err := workflow.ParseSet(c.Set)
	if err != nil {
		return err
	}
	wf, err := workflow.Load(root, c.Name)
	if err != nil {
		return err
	}
	if err := wf.Fill(params, workflow.PromptUses(root)); err != nil {
		return err
	}
	if err := workflow.CheckLoopNames(root, wf); err != nil {
		return err
	}
	if err := c.preflight(s, root, wf); err != nil {
		return err
	}
	if c.Background && !launch.InBackground() {
		return c.background(ctx, s, root, wf)
	}
	w := &launch.Workflow{Streams: s.launch(), Signals: in.launch(),
		Root: root, Workflow: wf, Params: params, Agent: c.Agent, AgentCmd: c.AgentCmd, Notify: c.Notify,
		Merge: func(ctx context.Context, st *workflow.Stage, name string) error {
			merge := &MergeCmd{Name: name, Notify: c.Notify}
			if st.Validate != "" { // the merged result is held to what the stage's loop was
				merge.Validate = &st.Validate
			}
			return merge.mergeStage(ctx, s, root, in.hurry)
		},
	}
	code, err := w.Run(ctx)
	if err != nil {
		return err
	}
	return exitcode.Quiet(code)
}

// preflight checks once, before any stage, that the commands the stages would run are
// approved: the repository config's (each stage's loop checks them again, without a
// terminal to ask on) and the workflow file's own.
func (c *WorkflowRunCmd) preflight(s Streams, root string, wf *workflow.Workflow) error {
	resolved, err := launch.LoadConfig(root, nil)
	if err != nil {
		return err
	}
	if err := s.terminal().Require(root, resolved); err != nil {
		return err
	}
	return requireWorkflowTrust(s, root, wf, workflowCommands(wf, c.Agent != "" || c.AgentCmd != ""))
}

// mergeStage merges a worktree stage's branch through the queue, as 'git ralph merge'
// does, and requires the main work tree's files to follow: the stages after it run
// there, and on files left at the old commit an agent's 'git add -A' would commit the
// merge's undoing.
func (c *MergeCmd) mergeStage(ctx context.Context, s Streams, root string, hurry <-chan struct{}) error {
	out, err := c.merging(s, nil).Run(ctx, root, nil, hurry)
	if err != nil {
		return err
	}
	for _, t := range out.Checkouts {
		if !t.Updated && samePlace(t.Path, root) {
			return hints.Wrap(fmt.Errorf("ralph/%s was merged, but the files of the main work tree were not updated (%s)", c.Name, t.Problem),
				"commit or move away what is changed there, run %s, then 'git ralph workflow run' again", mergequeue.UpdateCommand(t.Path, out.BaseBefore, out.Result))
		}
	}
	return nil
}

// samePlace reports whether two paths name one directory.
func samePlace(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
