package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// WorkflowTrustCmd is `git ralph workflow trust NAME`.
type WorkflowTrustCmd struct {
	Name string `arg:"" help:"The workflow: .ralph/workflows/NAME.toml."`
	Yes  bool   `short:"y" help:"Approve without asking, even on a terminal."`
}

// Run shows the commands of the workflow file and records the user's approval of them.
func (c *WorkflowTrustCmd) Run(ctx context.Context, s Streams) error {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	wf, err := workflow.Load(root, c.Name)
	if err != nil {
		return err
	}
	cmds := workflowCommands(wf, false)
	if len(cmds) == 0 {
		fmt.Fprintf(s.Stdout, "%s sets no commands: there is nothing to trust\n", wf.File)
		return nil
	}
	trust.Show(s.Stdout, cmds)
	if err := s.terminal().Approved(c.Yes, "git ralph workflow trust "+c.Name+" --yes" /* Load checked the name: safe in a shell */); err != nil {
		return err
	}
	store := trust.User()
	if err := store.Approve(workflowTrustKey(root, wf), cmds, time.Now()); err != nil {
		return trust.Explain(err)
	}
	fmt.Fprintf(s.Stdout, "trusted: recorded in %s; any change to them asks again\n", store.Path())
	return nil
}

// workflowTrustKey is what the approvals of a workflow's commands are recorded under:
// the workflow file's path, apart from the repository's config approval.
func workflowTrustKey(root string, wf *workflow.Workflow) string {
	return filepath.Join(root, filepath.FromSlash(wf.File))
}

// workflowCommands are what the workflow file would have git ralph run, by field: the
// stages' agents and commands, which reach each stage's loop as flags (always trusted),
// so the workflow must have them approved itself. With agentFlag, the stages' agents are
// replaced by --agent/--agent-cmd and are left out.
func workflowCommands(wf *workflow.Workflow, agentFlag bool) map[string]string {
	cmds := map[string]string{}
	add := func(field, v string) {
		if v != "" {
			cmds[field] = v
		}
	}
	for _, st := range wf.Stages {
		at := "stages." + st.Name + "."
		if !agentFlag {
			add(at+"agent", st.Agent)
			add(at+"agent_cmd", st.AgentCmd)
		}
		add(at+"validate", st.Validate)
		add(at+"until", st.Until)
		add(at+"judge", st.Judge)
		if _, cmd := wf.Next(st.OnComplete); cmd != "" {
			add(at+"on_complete", cmd)
		}
		if _, cmd := wf.Next(st.OnFailure); cmd != "" {
			add(at+"on_failure", cmd)
		}
	}
	return cmds
}

// requireWorkflowTrust requires the approval of a workflow file's commands, recorded
// apart from the repository config's.
func requireWorkflowTrust(s Streams, root string, wf *workflow.Workflow, cmds map[string]string) error {
	return s.terminal().RequireApproval(trust.Request{Cmds: cmds, Key: workflowTrustKey(root, wf),
		File: wf.File, Whose: "The workflow " + wf.File, TrustCmd: "git ralph workflow trust " + wf.Name})
}
