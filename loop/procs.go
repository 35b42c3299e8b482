package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// procs is how a run starts its processes (the agent, the judge, the validate and
// promise commands): in the repository, with the iteration's environment, under the run's
// watchdog and marker, stopped with its grace period. It is built once the run has its id.
type procs struct {
	dir   string
	run   string // the run's id: RALPH_RUN, the marker its leftover processes are found by
	mode  string
	max   int           // max_iterations; 0: unlimited
	grace time.Duration // SIGTERM→SIGKILL; 0: agent.DefaultGrace
	hurry <-chan struct{}
	dogs  *agent.Watchdogs
	// started saves the process group of an agent or judge, so that a git-ralph killed
	// with -9 can stop it when the loop next starts
	started func(pgid int)
	warn    func(string)
}

// env is the environment an agent (and the judge, the validate command) of iteration i gets.
func (p procs) env(i int) []string {
	max := ""
	if p.max > 0 {
		max = strconv.Itoa(p.max)
	}
	return []string{"RALPH_ITERATION=" + strconv.Itoa(i), "RALPH_MODE=" + p.mode,
		"RALPH_MAX_ITERATIONS=" + max, "RALPH_RUN=" + p.run}
}

// spec is what every process of iteration i shares: command runs in the repository with
// the iteration's environment, the run's marker and watchdog, stopped with its grace period.
func (p procs) spec(i int, command string) agent.Spec {
	return agent.Spec{Command: command, Dir: p.dir, Env: p.env(i), Grace: p.grace, Hurry: p.hurry,
		Marker: "RALPH_RUN=" + p.run, Watchdogs: p.dogs}
}

// validate runs a command that validates iteration i (the validate command, the promise
// command) in the repository root, like the agent: its own process group, a timeout,
// nothing left running afterwards, its output saved at logPath ("": not kept). It runs
// even after an interrupt has begun (the caller skips it then), so it takes its own context.
func (p procs) validate(ctx context.Context, i int, command, logPath string, timeout time.Duration) Validation {
	return p.validateTo(ctx, i, command, logPath, timeout, nil)
}

// validateTo is validate that also copies the whole output, as it comes, to also (nil:
// nowhere): the baseline's reader of test results.
func (p procs) validateTo(ctx context.Context, i int, command, logPath string, timeout time.Duration, also io.Writer) Validation {
	v := Validation{Command: command}
	if strings.TrimSpace(command) == "" {
		return v
	}
	log, closeLog := p.validationLog(logPath)
	defer closeLog()
	spec := p.spec(i, command)
	spec.Timeout, spec.MaxOutput, spec.Log = timeout, validationKept, log
	if also != nil {
		spec.Log = teeTo(log, also)
	}
	res, err := agent.Run(ctx, spec)
	if err != nil {
		return Validation{Command: command, Ran: true, ExitCode: 127, Tail: err.Error()}
	}
	if res.Interrupted {
		return v // stopped by Ctrl+C: it said nothing about the iteration
	}
	v.Ran, v.ExitCode, v.TimedOut, v.Duration = true, res.ExitCode, res.TimedOut, res.Duration
	v.Passed = res.ExitCode == 0 && res.Signal == 0 && !res.TimedOut && !res.Interrupted
	v.Tail = tailLines(string(res.Output), feedbackLines, feedbackBytes)
	return v
}

// validationLog opens the validation log at logPath, redacted like the agent's output;
// nil (and a warning) when it cannot be created, nil when there is nothing to keep it
// with (the promise checked before any iteration).
func (p procs) validationLog(logPath string) (io.Writer, func()) {
	if logPath == "" {
		return nil, func() {}
	}
	f, err := os.Create(logPath)
	if err != nil {
		p.warn(fmt.Sprintf("cannot save the validation output: %v", err))
		return nil, func() {}
	}
	saved := redact.NewWriter(f)
	return saved, func() { saved.Flush(); f.Close() }
}

// graceOf is the agent's SIGTERM→SIGKILL grace period, which also bounds the bookkeeping
// after an interrupt.
func graceOf(d time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return agent.DefaultGrace
}
