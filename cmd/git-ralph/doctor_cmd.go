package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/doctor"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts"
)

// DoctorCmd is `git ralph doctor [--json] [-- LOOP-FLAGS]`.
type DoctorCmd struct {
	JSON      bool     `name:"json" help:"Print the checks as a JSON array of {name, status, detail, hint}."`
	LoopFlags []string `arg:"" optional:"" name:"loop-flags" help:"Flags of 'git ralph loop', after --, to check the run they would make: git ralph doctor -- --agent codex."`
}

// Run checks what an unattended loop in this work tree would trip over, prints one
// line a check, and exits exitcode.DoctorFailed when one failed.
func (c *DoctorCmd) Run(ctx context.Context, s Streams) error {
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	lc, err := parseLoopFlags(c.LoopFlags)
	if err != nil {
		return err
	}
	// with --worktree NAME, the loop's worktree if it exists, as a dry run finds it:
	// doctor creates nothing
	lc.DryRun = true
	root, where, err := launch.WorktreeLoop(ctx, io.Discard, here, lc.options())
	if err != nil {
		return err
	}
	set, err := lc.resolve(root)
	if err != nil {
		return err
	}
	set.TrustedAt = where.TrustedAt
	in, err := doctorInput(ctx, set, true)
	if err != nil {
		return err
	}
	results := append([]doctor.Result{settingsCheck(ctx, set)}, doctor.Run(ctx, in)...)
	if c.JSON {
		err = display.JSON(s.Stdout, results)
	} else {
		err = doctor.Print(s.Stdout, results, doctor.UTF8Locale(os.Getenv))
	}
	if err != nil {
		return err
	}
	if doctor.Failed(results) {
		return exitcode.Quiet(exitcode.DoctorFailed)
	}
	return nil
}

// doctorInput is what the checks look at, from the loop's resolved settings. withCron:
// look at the repository's cron entries too.
func doctorInput(ctx context.Context, set *launch.Settings, withCron bool) (doctor.Input, error) {
	root := set.Loop.Dir
	lock, err := launch.LockPath(ctx, root)
	if err != nil {
		return doctor.Input{}, err
	}
	home, _ := os.UserHomeDir()
	in := doctor.Input{Root: root, LockPath: lock,
		Preset: set.Loop.Agent.Name, Program: set.Loop.Agent.Program, AgentCmd: set.Loop.AgentCmd,
		Validate: set.Loop.ValidateCmd, Until: set.Loop.Until,
		RepoCommands: set.Resolved.RepoCommands(), Trust: trust.User(), TrustedAt: set.TrustedAt,
		Retention: set.Loop.Retention, DailyMaxCost: set.Loop.Budget.DailyMaxCost,
		Env: os.Getenv, Home: home, GOOS: runtime.GOOS, Now: time.Now()}
	if set.Loop.Agent.InProcess() && set.Loop.AgentCmd == "" {
		api, _ := set.CheckAgent()
		in.APIAgent = &api
	}
	if withCron {
		in.Cron = func(ctx context.Context) ([]doctor.CronEntry, error) { return doctor.CronEntries(ctx, root) }
	}
	return in, nil
}

// settingsCheck is the loop's own preflight but for the agent's program, which the
// agent check says: the settings together, the prompt of the mode, the judge, the push
// target.
func settingsCheck(ctx context.Context, set *launch.Settings) doctor.Result {
	err := set.Loop.Validate()
	if errors.Is(err, loop.ErrNoAgent) {
		err = nil // the agent check says it
	}
	if err == nil {
		_, err = prompts.Assemble(prompts.Spec{Dir: set.Loop.Dir, Mode: set.Loop.Mode, Files: set.Loop.Prompts, Task: set.Loop.Task, Frame: set.Loop.Template.Prompt})
	}
	if err == nil {
		err = set.JudgeProblem()
	}
	if err == nil {
		err = launch.PreflightPush(ctx, set)
	}
	if err != nil {
		err = launch.Explain(err)
		r := doctor.Result{Name: "settings", Status: doctor.Fail, Detail: err.Error()}
		var h interface{ Hint() string }
		if errors.As(err, &h) {
			r.Hint = h.Hint()
		}
		return r
	}
	return doctor.Result{Name: "settings", Status: doctor.OK, Detail: fmt.Sprintf("the settings and the prompt of mode %s are in order", set.Loop.Mode)}
}

// warnDoctor runs the checks for schedule add, which is about to write the cron entry
// (so the entries' PATHs are not looked at), and prints the failures as warnings: the
// entry is added all the same, since the problem may be fixed before it runs.
func warnDoctor(ctx context.Context, w io.Writer, set *launch.Settings) {
	in, err := doctorInput(ctx, set, false)
	if err != nil {
		fmt.Fprintf(w, "warning: the checks of 'git ralph doctor' did not run: %s\n", display.PrintableText(err.Error()))
		return
	}
	doctor.PrintFailures(w, doctor.Run(ctx, in))
}
