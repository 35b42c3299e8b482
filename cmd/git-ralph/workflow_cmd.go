package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/notify"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
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
	Name     string `arg:"" help:"The workflow: .ralph/workflows/NAME.toml."`
	Agent    string `help:"The agent preset of every stage, over the stages' own agent." placeholder:"NAME"`
	AgentCmd string `name:"agent-cmd" help:"Your own agent command for every stage, over the stages' own." placeholder:"CMD"`
	Notify   string `help:"Where to say that a stage awaits approval (as loop --notify); default: the notify setting." placeholder:"LIST"`
}

// Run runs the workflow's stages and exits with the workflow's code.
func (c *WorkflowRunCmd) Run(ctx context.Context, s Streams, in *interrupts) error {
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	wf, err := workflow.Load(root, c.Name)
	if err != nil {
		return err
	}
	if err := workflow.CheckLoopNames(root, wf); err != nil {
		return err
	}
	if err := c.preflight(s, root, wf); err != nil {
		return err
	}
	lock, err := workflowLock(ctx, root, wf.Name)
	if err != nil {
		return err
	}
	defer lock.Release()
	state, err := history.LoadWorkflow(root, wf.Name)
	if err != nil {
		return err
	}
	if err := checkWorktreeBase(ctx, root, wf, &state); err != nil {
		return err
	}
	notes := c.notifier(s, root)
	defer notes.Close(in.hurry)
	r := &workflow.Runner{Root: root, Workflow: wf, State: &state,
		RunStage: c.stageRunner(s, in, root, wf),
		Merge: func(ctx context.Context, st *workflow.Stage, name string) error {
			merge := &MergeCmd{Name: name, Notify: c.Notify}
			if st.Validate != "" { // the merged result is held to what the stage's loop was
				merge.Validate = &st.Validate
			}
			return merge.mergeStage(ctx, s, root, in.hurry)
		},
		Command: func(ctx context.Context, st *workflow.Stage, key, command string, code int) error {
			return runStageCommand(ctx, s, root, wf.Name, st.Name, key, command, code)
		},
		Save: func(w history.WorkflowState) error { return history.SaveWorkflow(root, w) },
		Say: func(format string, args ...any) {
			fmt.Fprintf(s.Stderr, "git-ralph: %s\n", display.PrintableText(fmt.Sprintf(format, args...)))
		},
		Awaiting: func(st *workflow.Stage) {
			notes.Send(notify.ApprovalNeeded(notes.Where(), st.Name+" of workflow "+wf.Name, time.Now()))
		},
	}
	code, err := r.Run(ctx)
	if err != nil {
		return err
	}
	if code != workflow.ExitDone {
		fmt.Fprintf(s.Stderr, "git-ralph: next: %s\n", display.PrintableText(workflow.NextStep(wf, &state)))
	}
	return exitCode(code)
}

// notifier sends the approval notification to --notify, else to the notify setting.
func (c *WorkflowRunCmd) notifier(s Streams, root string) *notify.Notifier {
	var flags []config.Flag
	if c.Notify != "" {
		flags = append(flags, config.Flag{Key: "notify", Name: "--notify", Raw: c.Notify})
	}
	var list []string
	if resolved, err := loadConfig(root, flags); err == nil { // preflight reported a bad config
		list = resolved.Notify.V
	}
	return newNotifier(s, list, notify.Where{Repository: filepath.Base(root)}, nil)
}

// preflight checks once, before any stage, that the commands the stages would run are
// approved: the repository config's (each stage's loop checks them again, without a
// terminal to ask on) and the workflow file's own.
func (c *WorkflowRunCmd) preflight(s Streams, root string, wf *workflow.Workflow) error {
	resolved, err := loadConfig(root, nil)
	if err != nil {
		return err
	}
	if err := requireTrust(s, root, resolved); err != nil {
		return err
	}
	return requireWorkflowTrust(s, root, wf, workflowCommands(wf, c.Agent != "" || c.AgentCmd != ""))
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

// workflowLock keeps two runs of one workflow apart (and approve, reject while it runs).
func workflowLock(ctx context.Context, root, name string) (*history.FileLock, error) {
	path, err := gitops.GitPath(ctx, root, "ralph-workflow-"+name+".lock")
	if err != nil {
		return nil, err
	}
	lock, err := history.LockWorkflow(path)
	if errors.Is(err, history.ErrLocked) {
		return nil, &exitError{code: exitBusy, err: hints.Wrap(fmt.Errorf("the workflow %s is running", name), "wait for it to end, or stop it with Ctrl+C where it runs")}
	}
	return lock, err
}

// stageRunner runs a stage's loop as a child `git-ralph loop` process, with the stage's
// settings (see stageArgs), in the main work tree or in the stage's worktree.
func (c *WorkflowRunCmd) stageRunner(s Streams, in *interrupts, root string, wf *workflow.Workflow) func(context.Context, workflow.StageRun) (workflow.StageResult, error) {
	outs, errs := fleet.NewPrefixed(s.Stdout), fleet.NewPrefixed(s.Stderr)
	return func(ctx context.Context, run workflow.StageRun) (workflow.StageResult, error) {
		exe, err := os.Executable()
		if err != nil {
			return workflow.StageResult{}, fmt.Errorf("finding git-ralph's own program to run the stage: %w", err)
		}
		if run.Loop != "" && run.Fresh && run.Again {
			if err := discardStageLoop(ctx, s.Stderr, root, run.Loop); err != nil {
				return workflow.StageResult{}, err
			}
		}
		cmd := exec.Command(exe, c.stageArgs(wf, run)...)
		cmd.Dir = root
		var stdout, stderr io.WriteCloser = nopCloser{s.Stdout}, nopCloser{s.Stderr}
		if run.Loop != "" { // worktree stages may run at once: their lines are marked
			stdout, stderr = outs.Writer("["+run.Stage.Name+"] "), errs.Writer("["+run.Stage.Name+"] ")
		}
		defer stdout.Close()
		defer stderr.Close()
		var said errorLines
		cmd.Stdout, cmd.Stderr = stdout, io.MultiWriter(stderr, &said)
		code := 0
		if err := fleet.RunChild(ctx, in.hurry, cmd); err != nil {
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				return workflow.StageResult{}, fmt.Errorf("running the stage %s: %w", run.Stage.Name, err)
			}
			code = exit.ExitCode()
			if code < 0 { // killed by a signal
				code = workflow.ExitInterrupted
			}
		}
		res := workflow.ResultAt(stageDir(root, run), code, run.State.Before)
		if code != 0 {
			res.Error = said.String()
		}
		return res, nil
	}
}

func stageDir(root string, run workflow.StageRun) string {
	if run.Loop != "" {
		return fleet.Place(root, run.Loop)
	}
	return root
}

// discardStageLoop removes the worktree of a stage's earlier run, so that it starts over
// from the base its dependencies were merged into; its commits stay in a backup ref.
func discardStageLoop(ctx context.Context, w io.Writer, root, name string) error {
	d, err := fleet.Discard(ctx, root, name, true, time.Now())
	var notFound *fleet.Error
	if errors.As(err, &notFound) {
		return nil // never created, or removed by hand
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "git-ralph: the earlier worktree of %s was discarded; %s\n", name, d.Restore())
	return nil
}

// stageArgs are the child's command line: loop, the stage's settings, its task. Its
// limits are the repository's settings, not flags (see stageLimits).
func (c *WorkflowRunCmd) stageArgs(wf *workflow.Workflow, run workflow.StageRun) []string {
	st := run.Stage
	args := []string{"loop"}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, "--"+flag+"="+v)
		}
	}
	add("worktree", run.Loop)
	if run.Fresh {
		args = append(args, "--fresh")
	}
	add("mode", st.Mode)
	if c.Agent != "" || c.AgentCmd != "" { // the user's agent for every stage, instead of the file's
		add("agent", c.Agent)
		add("agent-cmd", c.AgentCmd)
	} else {
		add("agent", st.Agent)
		add("agent-cmd", st.AgentCmd)
	}
	add("validate", st.Validate)
	add("until", st.Until)
	add("judge", st.Judge)
	add("feedback", st.Feedback)
	add("prompt", st.Prompt)
	add("template", st.Template)
	add("context", run.Context)
	args = append(args, stageLimits(wf, st)...)
	if st.Task != "" {
		args = append(args, "--", st.Task)
	}
	return args
}

// stageLimits are the stage's limits for its loop. They are the repository's settings, as
// its .ralph/config.toml's are, so they go apart from the flags (which are the user's and
// beat every file): the loop's configuration lets them tighten the user's limits, never
// loosen them, and names the line of one refused.
func stageLimits(wf *workflow.Workflow, st *workflow.Stage) []string {
	var args []string
	add := func(key, stageKey, raw string) {
		field := "stages." + st.Name + "." + stageKey
		set := config.WorkflowSetting{Key: key, Raw: raw, File: wf.File, Line: wf.Line(field), Field: field}
		args = append(args, "--workflow-setting="+set.String())
	}
	if st.MaxIterations != nil {
		add("max_iterations", "max_iterations", strconv.Itoa(*st.MaxIterations))
	}
	if st.Timeout > 0 {
		add("iteration_timeout", "timeout", st.Timeout.String())
	}
	if st.IdleThreshold != nil {
		add("idle_threshold", "idle_threshold", strconv.Itoa(*st.IdleThreshold))
	}
	if st.MaxCost != nil {
		add("max_cost", "max_cost", strconv.FormatFloat(*st.MaxCost, 'f', -1, 64))
	}
	return args
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// mergeStage merges a worktree stage's branch through the queue, as 'git ralph merge'
// does, and requires the main work tree's files to follow: the stages after it run
// there, and on files left at the old commit an agent's 'git add -A' would commit the
// merge's undoing.
func (c *MergeCmd) mergeStage(ctx context.Context, s Streams, root string, hurry <-chan struct{}) error {
	out, err := c.merge(ctx, s, root, nil, hurry)
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
