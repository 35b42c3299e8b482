package launch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/notify"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// Workflow is the run of a workflow's stages, each a child loop: `git ralph workflow run`
// once its commands are approved.
type Workflow struct {
	Streams
	Signals  Signals
	Root     string
	Workflow *workflow.Workflow // its stages' tasks filled with Params
	Params   workflow.Params    // --set of workflow run, kept in the workflow's state
	Agent    string             // --agent of workflow run: every stage's agent, over the stages' own
	AgentCmd string             // --agent-cmd of workflow run
	Notify   string             // --notify of workflow run: where a stage awaiting approval is said
	// Merge merges the branch name of a worktree stage st through the merge queue.
	Merge func(ctx context.Context, st *workflow.Stage, name string) error
}

// Run runs the stages that are still to run, under the workflow's lock, and returns the
// workflow's exit code (workflow.ExitDone, …), having said what to do next when not done.
func (w *Workflow) Run(ctx context.Context) (int, error) {
	root, wf := w.Root, w.Workflow
	lock, err := WorkflowLock(ctx, root, wf.Name)
	if err != nil {
		return 0, err
	}
	defer lock.Release()
	Started()
	state, err := history.LoadWorkflow(root, wf.Name)
	if err != nil {
		return 0, err
	}
	if err := workflow.KeepParams(wf, &state, w.Params); err != nil {
		return 0, err
	}
	if err := checkWorktreeBase(ctx, root, wf, &state); err != nil {
		return 0, err
	}
	notes := w.notifier()
	defer notes.Close(w.Signals.Hurry)
	r := &workflow.Runner{Root: root, Workflow: wf, State: &state,
		RunStage: w.stageRunner(),
		Merge:    w.Merge,
		Command: func(ctx context.Context, st *workflow.Stage, key, command string, code int) error {
			return stageCommand(ctx, w.Stderr, root, wf.Name, st.Name, key, command, code)
		},
		Save: func(s history.WorkflowState) error { return history.SaveWorkflow(root, s) },
		Say: func(format string, args ...any) {
			fmt.Fprintf(w.Stderr, "git-ralph: %s\n", display.PrintableText(fmt.Sprintf(format, args...)))
		},
		Awaiting: func(st *workflow.Stage) {
			notes.Send(notify.ApprovalNeeded(notes.Where(), st.Name+" of workflow "+wf.Name, time.Now()))
		},
	}
	code, err := r.Run(ctx)
	if err != nil {
		return 0, err
	}
	if code != workflow.ExitDone {
		fmt.Fprintf(w.Stderr, "git-ralph: next: %s\n", display.PrintableText(workflow.NextStep(wf, &state)))
	}
	return code, nil
}

// notifier sends the approval notification to --notify, else to the notify setting.
func (w *Workflow) notifier() *notify.Notifier {
	var flags []config.Flag
	if w.Notify != "" {
		flags = append(flags, config.Flag{Key: "notify", Name: "--notify", Raw: w.Notify})
	}
	var list []string
	if resolved, err := LoadConfig(w.Root, flags); err == nil { // the preflight reported a bad config
		list = resolved.Notify.V
	}
	return NewNotifier(w.Stderr, list, notify.Where{Repository: filepath.Base(w.Root)}, nil)
}

// checkWorktreeBase refuses to start the worktree stages that are still to run when
// what they need is not committed. A worktree is made from HEAD: it lacks uncommitted
// changes and files, and the merge of its branch cannot update a work tree with changes
// of its own. Its loop writes .ralph/.gitignore there, and its agent commits it: the
// uncommitted copy here would be in the way of that merge.
func checkWorktreeBase(ctx context.Context, root string, wf *workflow.Workflow, state *history.WorkflowState) error {
	var stages []*workflow.Stage
	for _, st := range wf.Stages {
		if ss := state.Stage(st.Name); st.Worktree && (!ss.Status.Complete() || ss.Unmerged) { // still to run, or to merge
			stages = append(stages, st)
		}
	}
	if len(stages) == 0 {
		return nil
	}
	file := history.Dir + "/.gitignore"
	if ok, err := gitops.InHead(ctx, root, file); err != nil || !ok {
		if err == nil {
			err = history.EnsureGitignore(root) // so that the hint's git add finds it
		}
		return cmp.Or(err, hints.Wrap(fmt.Errorf("%s is not committed: the stage %s runs in a worktree, where its agent would commit its own, and its merge could not update this work tree", file, stages[0].Name),
			"commit it first: git add %s && git commit -m 'git-ralph'", file))
	}
	for _, st := range stages {
		if st.Prompt == "" {
			continue
		}
		if ok, err := gitops.InHead(ctx, root, st.Prompt); err != nil || !ok {
			return cmp.Or(err, hints.Wrap(wf.FieldError("stages."+st.Name+".prompt", st.Prompt+" is not committed: the stage runs in a worktree made from the last commit, without it", ""),
				"commit it first: git add %s && git commit", st.Prompt))
		}
	}
	if dirty, err := gitops.TrackedChanges(ctx, root); err != nil || dirty {
		return cmp.Or(err, hints.Wrap(fmt.Errorf("this work tree has changes that are not committed: the stage %s runs in a worktree made from the last commit, without them, and its merge could not update this work tree", stages[0].Name),
			"commit them first (or move them away); 'git status' lists them"))
	}
	return nil
}

// WorkflowLock keeps two runs of one workflow apart (and approve, reject while it runs);
// another holder's is an exitcode.Error of exitcode.Busy.
func WorkflowLock(ctx context.Context, root, name string) (*history.FileLock, error) {
	path, err := gitops.GitPath(ctx, root, "ralph-workflow-"+name+".lock")
	if err != nil {
		return nil, err
	}
	lock, err := history.LockWorkflow(path)
	if errors.Is(err, history.ErrLocked) {
		return nil, &exitcode.Error{Code: exitcode.Busy, Err: hints.Wrap(fmt.Errorf("the workflow %s is running", name), "wait for it to end, or stop it with Ctrl+C where it runs")}
	}
	return lock, err
}
