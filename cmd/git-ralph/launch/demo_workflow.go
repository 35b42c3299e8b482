package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/scaffold"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/schedule"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// demoRequest is what the demo asks the hierarchy workflow to build.
const demoRequest = "# Request\n\nTwo commands: bin/greet, which prints \"hello, NAME\" (world by default), and\nbin/shout, which greets in capitals.\n"

// runWorkflow shows the hierarchy workflow (init --workflow hierarchy) at work in the
// scratch repository dir: the plan stops at its gate (exit 7), the demo approves it as a
// person would, and the next run goes through spec, phase and code, the code stage in a
// worktree merged through the queue. Each step is the git ralph command a user types.
func (c *Demo) runWorkflow(ctx context.Context, dir, agentCmd string) error {
	defer func() {
		if !c.Keep {
			os.RemoveAll(fleet.Place(dir, "")) // the worktrees beside the scratch repository
		}
	}()
	if err := c.scaffoldWorkflow(ctx, dir); err != nil {
		return fmt.Errorf("setting up the demo workflow: %w", err)
	}
	steps := []struct {
		title string
		args  []string
		want  int
	}{
		{"The workflow, as 'git ralph init --workflow hierarchy' wrote it: plan → spec → phase → code", []string{"workflow", "status", "hierarchy"}, exitcode.OK},
		{"Run it: the plan stage writes plans/001-greet.plan.md and waits for your approval (exit 7)", []string{"workflow", "run", "hierarchy", "--agent-cmd", agentCmd}, workflow.ExitAwaiting},
		{"You read the plan and approve it (or: git ralph reject plan --feedback \"…\")", []string{"approve", "plan"}, exitcode.OK},
		{"Run it again: spec, phase, then code in a worktree of its own, merged through the merge queue", []string{"workflow", "run", "hierarchy", "--agent-cmd", agentCmd}, workflow.ExitDone},
		{"Where it stands", []string{"workflow", "status", "hierarchy"}, exitcode.OK},
	}
	for _, step := range steps {
		fmt.Fprintf(c.Stdout, "%s\n$ git ralph %s\n", step.title, shellWords(step.args))
		code, err := c.runStep(ctx, dir, step.args)
		if err != nil {
			return err
		}
		if code != step.want {
			return &exitcode.Error{Code: code, Err: fmt.Errorf("the demo's step 'git ralph %s' ended with exit code %d instead of %d", step.args[0], code, step.want)}
		}
		fmt.Fprintf(c.Stdout, "→ exit code %d\n\n", code)
	}
	c.summariseWorkflow(ctx, c.Stdout, dir, agentCmd)
	return nil
}

// scaffoldWorkflow writes the hierarchy workflow, as 'git ralph init --workflow
// hierarchy' does, with the demo's request as its request.md, committed.
func (c *Demo) scaffoldWorkflow(ctx context.Context, dir string) error {
	files, err := scaffold.Workflow("hierarchy")
	if err != nil {
		return err
	}
	for i, f := range files {
		if strings.HasSuffix(f.Path, "/request.md") {
			files[i].Body = demoRequest
		}
	}
	if _, err := scaffold.WriteFiles(dir, files, false); err != nil {
		return err
	}
	_, err = gitops.CommitAll(ctx, dir, "Ralph workflow hierarchy")
	return err
}

// runStep runs one git ralph command in dir as a child process, its output indented.
func (c *Demo) runStep(ctx context.Context, dir string, args []string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("finding git-ralph's own executable: %w", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	out := &indented{w: c.Stdout, prefix: "    │ "}
	cmd.Stdout, cmd.Stderr = out, out
	err = fleet.RunChild(ctx, c.Signals.Hurry, cmd)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), nil
	case err != nil:
		return 0, err
	}
	return exitcode.OK, nil
}

func shellWords(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = schedule.ShellWord(a)
	}
	return strings.Join(words, " ")
}

func (c *Demo) summariseWorkflow(ctx context.Context, w io.Writer, dir, agentCmd string) {
	fmt.Fprintf(w, "What happened, in git (newest first):\n")
	if log, err := gitops.Log(ctx, dir, 20); err == nil {
		for _, line := range log {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if c.Keep {
		fmt.Fprintf(w, "\nThe scratch repository is kept: cd %s\n", dir)
		fmt.Fprintf(w, "There, 'git ralph workflow status hierarchy' shows the stages; 'git ralph reject plan --feedback \"…\"' then\n  git ralph workflow run hierarchy --agent-cmd %s\nruns the plan again and every stage built on it.\n", schedule.ShellWord(agentCmd))
	} else {
		fmt.Fprintf(w, "\nThe scratch repository was removed; run 'git ralph demo --workflow --keep' to look around in it.\n")
	}
	fmt.Fprintf(w, "With a real agent, in your repository: git ralph init --workflow hierarchy, then git ralph workflow run hierarchy --agent claude\n")
}
