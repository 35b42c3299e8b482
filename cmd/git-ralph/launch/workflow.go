package launch

import (
	"bytes"
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
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// Workflow is the run of a workflow's stages, each a child loop: `git ralph workflow run`
// once its commands are approved.
type Workflow struct {
	Streams
	Signals  Signals
	Root     string
	Workflow *workflow.Workflow
	Agent    string // --agent of workflow run: every stage's agent, over the stages' own
	AgentCmd string // --agent-cmd of workflow run
	Notify   string // --notify of workflow run: where a stage awaiting approval is said
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
	state, err := history.LoadWorkflow(root, wf.Name)
	if err != nil {
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
// another holder's is an ExitError of ExitBusy.
func WorkflowLock(ctx context.Context, root, name string) (*history.FileLock, error) {
	path, err := gitops.GitPath(ctx, root, "ralph-workflow-"+name+".lock")
	if err != nil {
		return nil, err
	}
	lock, err := history.LockWorkflow(path)
	if errors.Is(err, history.ErrLocked) {
		return nil, &ExitError{Code: ExitBusy, Err: hints.Wrap(fmt.Errorf("the workflow %s is running", name), "wait for it to end, or stop it with Ctrl+C where it runs")}
	}
	return lock, err
}

// stageRunner runs a stage's loop as a child `git-ralph loop` process, with the stage's
// settings (see StageLoop), in the main work tree or in the stage's worktree.
func (w *Workflow) stageRunner() func(context.Context, workflow.StageRun) (workflow.StageResult, error) {
	outs, errs := fleet.NewPrefixed(w.Stdout), fleet.NewPrefixed(w.Stderr)
	root := w.Root
	return func(ctx context.Context, run workflow.StageRun) (workflow.StageResult, error) {
		if run.Loop != "" && run.Fresh && run.Again {
			if err := discardStageLoop(ctx, w.Stderr, root, run.Loop); err != nil {
				return workflow.StageResult{}, err
			}
		}
		cmd, err := StageLoop(w.Workflow, run, w.Agent, w.AgentCmd).Command(root)
		if err != nil {
			return workflow.StageResult{}, err
		}
		var stdout, stderr io.WriteCloser = nopCloser{w.Stdout}, nopCloser{w.Stderr}
		if run.Loop != "" { // worktree stages may run at once: their lines are marked
			stdout, stderr = outs.Writer("["+run.Stage.Name+"] "), errs.Writer("["+run.Stage.Name+"] ")
		}
		defer stdout.Close()
		defer stderr.Close()
		var said errorLines
		cmd.Stdout, cmd.Stderr = stdout, io.MultiWriter(stderr, &said)
		code := 0
		if err := fleet.RunChild(ctx, w.Signals.Hurry, cmd); err != nil {
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

// StageLoop is a stage's child loop: in its worktree (run.Loop) or the main work tree,
// the stage's settings as flags, its limits as the repository's settings (see
// stageLimits), its task. agent and agentCmd, from workflow run, replace the stages' own.
func StageLoop(wf *workflow.Workflow, run workflow.StageRun, agent, agentCmd string) ChildLoop {
	st := run.Stage
	var flags []string
	add := func(flag, v string) {
		if v != "" {
			flags = append(flags, "--"+flag+"="+v)
		}
	}
	if run.Fresh {
		flags = append(flags, "--fresh")
	}
	add("mode", st.Mode)
	if agent != "" || agentCmd != "" { // the user's agent for every stage, instead of the file's
		add("agent", agent)
		add("agent-cmd", agentCmd)
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
	flags = append(flags, stageLimits(wf, st)...)
	return ChildLoop{Worktree: run.Loop, Flags: flags, Task: st.Task}
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

// stageCommandTimeout bounds an on_complete or on_failure command.
const stageCommandTimeout = 10 * time.Minute

// stageCommand runs a stage's on_complete or on_failure command as hooks run: sh -c in
// the repository root, in a process group of its own stopped whole at the timeout, told
// the workflow, the stage and its loop's exit code.
func stageCommand(ctx context.Context, stderr io.Writer, root, wf, stage, key, command string, code int) error {
	fmt.Fprintf(stderr, "git-ralph: workflow %s: %s of %s: %s\n", wf, key, stage, display.Printable(command))
	// the marker lets the watchdog stop what the command started if git-ralph is killed
	marker := fmt.Sprintf("RALPH_STAGE_COMMAND=%s.%s.%d.%d", wf, stage, os.Getpid(), time.Now().UnixNano())
	res, err := agent.Run(ctx, agent.Spec{Command: command, Dir: root, Prompt: bytes.NewReader(nil), Timeout: stageCommandTimeout,
		Env:       []string{"RALPH_WORKFLOW=" + wf, "RALPH_STAGE=" + stage, "RALPH_STAGE_EXIT_CODE=" + strconv.Itoa(code), marker},
		MaxOutput: 64 << 10, Live: stderr, Marker: marker, Watchdog: WatchdogCommand})
	switch {
	case err != nil:
		return fmt.Errorf("could not run: %w", err)
	case res.TimedOut:
		return fmt.Errorf("timed out after %s", stageCommandTimeout)
	case res.ExitCode != 0:
		return errors.New("exit status " + strconv.Itoa(res.ExitCode))
	}
	return nil
}
