package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

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
