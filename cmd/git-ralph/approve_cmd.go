package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// ApproveCmd is `git ralph approve STAGE`.
type ApproveCmd struct {
	Stage    string `arg:"" help:"The stage that awaits approval."`
	Workflow string `help:"The workflow of the stage, when several have a stage of that name." placeholder:"NAME"`
}

// RejectCmd is `git ralph reject STAGE --feedback TEXT`.
type RejectCmd struct {
	Stage    string `arg:"" help:"The stage whose result is rejected."`
	Feedback string `required:"" help:"What is wrong and what to do instead: the stage's next run gets it in its prompt." placeholder:"TEXT"`
	Workflow string `help:"The workflow of the stage, when several have a stage of that name." placeholder:"NAME"`
}

// Run approves the stage; the next `workflow run` goes on with what needs it.
func (c *ApproveCmd) Run(ctx context.Context, s Streams) error {
	return changeGate(ctx, s, c.Workflow, c.Stage, func(wf *workflow.Workflow, st *history.WorkflowState) error {
		if err := workflow.Approve(wf, st, c.Stage, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(s.Stdout, "approved: %s of workflow %s\nnext: '%s' goes on with the stages after it\n", c.Stage, wf.Name, workflow.RunCommand(wf, st))
		return nil
	})
}

// Run rejects the stage's result: it runs again with the feedback, and the stages built
// on it are stale.
func (c *RejectCmd) Run(ctx context.Context, s Streams) error {
	if strings.TrimSpace(c.Feedback) == "" {
		return hints.Wrap(errors.New("--feedback is empty"), "say what is wrong: the stage's next run gets it in its prompt")
	}
	return changeGate(ctx, s, c.Workflow, c.Stage, func(wf *workflow.Workflow, st *history.WorkflowState) error {
		stale, err := workflow.Reject(wf, st, c.Stage, c.Feedback)
		if err != nil {
			return err
		}
		fmt.Fprintf(s.Stdout, "rejected: %s of workflow %s runs again with your feedback\n", c.Stage, wf.Name)
		if len(stale) > 0 {
			fmt.Fprintf(s.Stdout, "stale: %s (they run again after it)\n", strings.Join(stale, ", "))
		}
		fmt.Fprintf(s.Stdout, "next: '%s'\n", workflow.RunCommand(wf, st))
		return nil
	})
}

// changeGate finds the stage's workflow, and changes its state under the workflow's lock.
func changeGate(ctx context.Context, s Streams, name, stage string, change func(*workflow.Workflow, *history.WorkflowState) error) error {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	if name == "" {
		if name, err = workflowOfStage(root, stage); err != nil {
			return err
		}
	}
	wf, err := workflow.Load(root, name)
	if err != nil {
		return err
	}
	lock, err := launch.WorkflowLock(ctx, root, wf.Name)
	if err != nil {
		return err
	}
	defer lock.Release()
	state, err := history.LoadWorkflow(root, wf.Name)
	if err != nil {
		return err
	}
	if err := change(wf, &state); err != nil {
		return err
	}
	return history.SaveWorkflow(root, state)
}

// workflowOfStage finds the one workflow with a stage named stage, preferring those that
// have a state (they ran); it refuses to guess between several.
func workflowOfStage(root, stage string) (string, error) {
	entries, err := os.ReadDir(root + "/" + workflow.Dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var all, ran, loaded []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".toml")
		if !ok || e.IsDir() || workflow.CheckName("workflow", name) != nil {
			continue
		}
		wf, err := workflow.Load(root, name)
		if err == nil {
			loaded = append(loaded, name)
		}
		if err != nil || wf.Stage(stage) == nil {
			continue
		}
		all = append(all, name)
		if st, err := history.LoadWorkflow(root, name); err == nil && len(st.Stages) > 0 {
			ran = append(ran, name)
		}
	}
	switch {
	case len(ran) == 1:
		return ran[0], nil
	case len(all) == 1:
		return all[0], nil
	case len(all) == 0 && len(loaded) == 1: // the one workflow there is says which stages it has
		return loaded[0], nil
	case len(all) == 0:
		return "", hints.Wrap(fmt.Errorf("no workflow in %s has a stage %q", workflow.Dir, stage), "'git ralph workflow status NAME' lists a workflow's stages")
	}
	slices.Sort(all)
	return "", hints.Wrap(fmt.Errorf("the workflows %s all have a stage %q", strings.Join(all, ", "), stage), "say which with --workflow NAME")
}
