package launch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/scaffold"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/schedule"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/demoagent"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Demo is `git ralph demo`: the whole tool at work on a scratch repository, with a
// scripted agent built into git-ralph, so it needs no agent CLI and no network.
type Demo struct {
	Streams
	Signals   Signals
	Keep      bool   // keep the scratch repository to look around in
	Workflow  bool   // the hierarchy workflow instead of a plan and build loop
	FirstLoop string // the command line that starts a first loop, for the summary
}

// Run scaffolds the scratch repository, runs one plan iteration and then build
// iterations until the agent signals SUCCESS, and shows what happened.
func (c *Demo) Run(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "git-ralph-demo-")
	if err != nil {
		return fmt.Errorf("creating the scratch directory: %w", err)
	}
	if !c.Keep {
		defer os.RemoveAll(dir)
	}
	fmt.Fprintf(c.Stdout, "git ralph demo: a scripted agent builds a tiny shell toolbox in %s\n\n", dir)
	if err := c.newRepo(ctx, dir); err != nil {
		return fmt.Errorf("setting up the demo repository: %w", err)
	}
	agentCmd, err := demoAgentCommand()
	if err != nil {
		return err
	}
	if c.Workflow {
		return c.runWorkflow(ctx, dir, agentCmd)
	}
	status, err := c.runModes(ctx, dir, agentCmd)
	if err != nil {
		return err
	}
	c.summarise(ctx, c.Stdout, dir, agentCmd)
	if status != loop.StatusSuccess {
		return &exitcode.Error{Code: status.ExitCode(), Err: fmt.Errorf("the demo ended %s instead of success", status)}
	}
	return nil
}

// runModes runs the plan loop for one iteration, then the build loop until SUCCESS.
func (c *Demo) runModes(ctx context.Context, dir, agentCmd string) (loop.Status, error) {
	steps := []struct {
		mode, title string
		max         int
	}{
		{"plan", "Plan mode: gap analysis of specs/ against the code, writes IMPLEMENTATION_PLAN.md", 1},
		{"build", "Build mode: one plan item per iteration, with a test, committed", 10},
	}
	var status loop.Status
	for _, step := range steps {
		fmt.Fprintf(c.Stdout, "%s\n$ %s\n", step.title, demoLoopCommand(step.mode, step.max, agentCmd))
		cfg := loop.Config{Dir: dir, Mode: step.mode, AgentCmd: agentCmd, MaxIterations: step.max,
			MaxConsecutiveErrors: loop.DefaultMaxConsecutiveErrors, MaxOutputBuffer: loop.DefaultMaxOutputBuffer,
			IdleThreshold: loop.DefaultIdleThreshold}
		res, err := c.runLoop(ctx, cfg)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(c.Stdout, "→ exit code %d (%s)\n\n", res.Status.ExitCode(), res.Status)
		if status = res.Status; status == loop.StatusInterrupted || status == loop.StatusAborted {
			break
		}
	}
	return status, nil
}

// runLoop runs one loop of the demo, reporting to the terminal and, like every
// loop, to the structured log (git ralph logs).
func (c *Demo) runLoop(ctx context.Context, cfg loop.Config) (loop.Result, error) {
	reporter := reporting.Reporters{reporting.NewProgress(c.Stdout, false)}
	if log, err := reporting.OpenRunLog(cfg.Dir, "info"); err != nil {
		fmt.Fprintf(c.Stderr, "warning: no structured log for this run: %v\n", err)
	} else {
		defer log.Close()
		reporter = append(reporter, log)
	}
	return loop.Run(ctx, cfg, loop.Deps{Reporter: reporter, Hurry: c.Signals.Hurry,
		Live: &indented{w: c.Stdout, prefix: "    │ "}})
}

// demoLoopCommand is the command line that runs the demo's loop: the same settings, so
// that it works in the kept repository.
func demoLoopCommand(mode string, max int, agentCmd string) string {
	return fmt.Sprintf("git ralph loop --mode %s --max %d --verbose --agent-cmd %s", mode, max, schedule.ShellWord(agentCmd))
}

// newRepo makes dir a repository with the demo project's specs, the default
// prompts and .ralph/, committed, with an identity of its own so no global git setting
// (signing, hooks, user) gets in the way.
func (c *Demo) newRepo(ctx context.Context, dir string) error {
	if err := gitops.Init(ctx, dir, "main"); err != nil {
		return err
	}
	for _, kv := range [][2]string{{"user.name", "git-ralph demo"}, {"user.email", "demo@git-ralph.invalid"},
		{"commit.gpgsign", "false"}} {
		if _, err := gitops.Git(ctx, dir, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	if err := demoagent.Scaffold(dir); err != nil {
		return err
	}
	if _, err := scaffold.Write(dir, false); err != nil { // as 'git ralph init' does
		return err
	}
	_, err := gitops.CommitAll(ctx, dir, "textkit: specs and Ralph prompts")
	return err
}

// demoAgentCommand runs this very binary as the agent, through sh like any agent:
// "git ralph demo-agent" when that is the git-ralph on PATH, else by its path.
func demoAgentCommand() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding git-ralph's own executable: %w", err)
	}
	if onPath, err := exec.LookPath("git-ralph"); err == nil && sameFile(onPath, exe) {
		return "git ralph demo-agent", nil
	}
	return schedule.ShellWord(exe) + " demo-agent", nil
}

func (c *Demo) summarise(ctx context.Context, w io.Writer, dir, agentCmd string) {
	fmt.Fprintf(w, "What happened, in git (newest first):\n")
	if log, err := gitops.Log(ctx, dir, 20); err == nil {
		for _, line := range log {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if plan, err := repofile.ReadIn(dir, demoagent.PlanFile, demoagent.PlanFile, repofile.PromptLimit); err == nil {
		fmt.Fprintf(w, "\n%s now reads:\n%s", demoagent.PlanFile, display.Indent(string(plan), "  "))
	}
	if c.Keep {
		fmt.Fprintf(w, "\nThe scratch repository is kept: cd %s\n", dir)
		fmt.Fprintf(w, "There, 'git ralph history' and 'git ralph logs' show the runs, and this runs the build loop again:\n  %s\n",
			demoLoopCommand("build", 10, agentCmd))
	} else {
		fmt.Fprintf(w, "\nThe scratch repository was removed; run 'git ralph demo --keep' to look around in it.\n")
	}
	fmt.Fprintf(w, "With a real agent, in your repository: git ralph init, then %s\n", c.FirstLoop)
}

// indented prefixes every line written through it, to set the agent's output apart.
type indented struct {
	w      io.Writer
	prefix string
	mid    bool // the last write ended mid-line
}

func (d *indented) Write(p []byte) (int, error) {
	var b bytes.Buffer
	for _, c := range p {
		if !d.mid {
			b.WriteString(d.prefix)
		}
		b.WriteByte(c)
		d.mid = c != '\n'
	}
	_, err := d.w.Write(b.Bytes())
	return len(p), err
}

// sameFile reports whether both paths name the same existing file.
func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}
