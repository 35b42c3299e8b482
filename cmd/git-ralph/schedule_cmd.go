package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/kongmodel"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/schedule"
)

// ScheduleCmd is `git ralph schedule add|list|remove`.
type ScheduleCmd struct {
	Add    ScheduleAddCmd    `cmd:"" help:"Add a cron entry that runs 'git ralph loop' in this repository."`
	List   ScheduleListCmd   `cmd:"" help:"List git-ralph's cron entries, of every repository."`
	Remove ScheduleRemoveCmd `cmd:"" help:"Remove one of git-ralph's cron entries by its ID."`
}

// ScheduleAddCmd is `git ralph schedule add --cron SPEC [-- LOOP-FLAGS]`.
type ScheduleAddCmd struct {
	Cron      string   `required:"" placeholder:"SPEC" help:"When to run, in crontab's syntax: \"MIN HOUR DAY MONTH WEEKDAY\" such as \"0 2 * * *\", or @hourly, @daily, @weekly, @monthly, @yearly, @reboot."`
	LoopFlags []string `arg:"" optional:"" name:"loop-flags" help:"Flags for 'git ralph loop', after --: git ralph schedule add --cron \"0 2 * * *\" -- --max 10."`
}

// Run checks the schedule and the loop flags as the loop will read them, then adds one
// line to the user's crontab and leaves every other line as it was.
func (c *ScheduleAddCmd) Run(ctx context.Context, s Streams) error {
	spec, err := schedule.ParseSpec(c.Cron)
	if err != nil {
		return err
	}
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	j, set, warnings, err := c.newJob(ctx, s, root, spec)
	if err != nil {
		return err
	}
	id, err := schedule.Add(ctx, j)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(s.Stderr, "warning: %s\n", w)
	}
	warnDoctor(ctx, s.Stderr, set)
	fmt.Fprintf(s.Stdout, "added cron entry %s: %s in %s\n", id, spec, root)
	fmt.Fprintf(s.Stdout, "  runs: git ralph loop %s\n", strings.Join(schedule.QuoteAll(append([]string{"--skip-if-busy"}, j.Flags()...)), " "))
	fmt.Fprintf(s.Stdout, "  output goes to %s ('git ralph schedule remove %s' removes it)\n", j.Log(), id)
	return nil
}

// newJob checks everything the 2 a.m. run would trip over, now: the loop flags, the
// settings they resolve to with the repository's config, the prompt, the agent program,
// the push target and trust. It returns the job, the settings it runs with and what
// deserves a warning.
func (c *ScheduleAddCmd) newJob(ctx context.Context, s Streams, root, spec string) (schedule.Job, *launch.Settings, []string, error) {
	lc, err := parseLoopFlags(c.LoopFlags)
	if err != nil {
		return schedule.Job{}, nil, nil, err
	}
	set, err := lc.resolve(root)
	if err != nil {
		return schedule.Job{}, nil, nil, err
	}
	if err := launch.Preflight(ctx, set); err != nil {
		return schedule.Job{}, nil, nil, err
	}
	if err := s.terminal().Require(root, set.Resolved); err != nil {
		return schedule.Job{}, nil, nil, err
	}
	exe, warnings, err := schedule.Executable()
	if err != nil {
		return schedule.Job{}, nil, nil, err
	}
	j, err := schedule.NewJob(spec, root, exe, c.LoopFlags, scheduledPrograms(set))
	if err != nil {
		return schedule.Job{}, nil, nil, err
	}
	return j, set, warnings, schedule.PrepareLogs(root)
}

// scheduledPrograms are the paths of the programs the loop will run, the agent and the
// validate command, where they were found: cron's PATH must find them too.
func scheduledPrograms(set *launch.Settings) []string {
	programs := []agentcheck.Result{}
	if check, any := set.CheckAgent(); any {
		programs = append(programs, check)
	}
	if set.Loop.ValidateCmd != "" {
		programs = append(programs, agentcheck.Command(set.Loop.Dir, set.Loop.ValidateCmd))
	}
	var paths []string
	for _, check := range programs {
		if check.OK && check.Path != "" {
			paths = append(paths, check.Path)
		}
	}
	return paths
}

// parseLoopFlags reads the flags with the loop's own command-line model, without
// running the loop, so that a typo fails now rather than in the cron log at 2 a.m.
func parseLoopFlags(flags []string) (lc *LoopCmd, err error) {
	for _, f := range flags {
		if strings.ContainsAny(f, "\n\r") {
			return nil, hints.Wrap(fmt.Errorf("loop flag %q holds a line break, which a crontab line cannot", f),
				"put long text in a file the prompt includes, or in .ralph/config.toml")
		}
	}
	var cli CLI
	quiet := Streams{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	k, err := parser(&cli, quiet, func(int) { panic(helpExit{}) })
	if err != nil {
		return nil, fmt.Errorf("building the loop's command line: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(helpExit); !ok {
				panic(r)
			}
			lc, err = nil, hints.Wrap(errors.New("--help and --version are not loop flags to schedule"), "'git ralph loop -h' lists the loop's flags")
		}
	}()
	if _, err := k.Parse(kongmodel.JoinNegativeValues(k, append([]string{"loop"}, flags...))); err != nil {
		return nil, hints.Wrap(fmt.Errorf("loop flags: %w", err),
			"'git ralph loop -h' lists the loop's flags; they go after --, e.g.\ngit ralph schedule add --cron \"0 2 * * *\" -- --mode build --max 10")
	}
	return &cli.Loop, checkCronFlags(&cli.Loop)
}

// checkCronFlags refuses flags that parse but make no sense unattended.
func checkCronFlags(lc *LoopCmd) error {
	switch {
	case lc.DryRun:
		return hints.Wrap(errors.New("--dry-run runs nothing: the entry would only print the settings every time"),
			"try the flags now with 'git ralph loop --dry-run …', then schedule them without it")
	case lc.Verbose.On() && lc.Quiet:
		return hints.Wrap(errors.New("--verbose and --quiet contradict each other"), "pick one")
	case lc.Background:
		return hints.Wrap(errors.New("--background has nothing to detach from under cron, and would send the run's lines away from cron.log"), "schedule the flags without it")
	}
	return nil
}
