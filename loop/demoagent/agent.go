package demoagent

import (
	"context"
	"fmt"
	"io"
)

// Promise lines the agent prints as its last output line when it declares the run over.
const (
	PromiseSuccess = "<promise>SUCCESS</promise>"
	PromiseFailure = "<promise>FAILURE</promise>"
)

// PlanFile is the plan written in plan mode and worked through in build mode.
const PlanFile = "IMPLEMENTATION_PLAN.md"

// Exit codes of Main, mapped in one place.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// outcome is how an iteration ends, as the agent reports it to the loop.
type outcome int

const (
	working   outcome = iota // progress made, work remains
	succeeded                // the plan is complete: print SUCCESS
	failed                   // the agent gives up: print FAILURE
)

// iteration is one mode of the agent: it works in dir, narrates to out and reports how it ended.
type iteration func(ctx context.Context, dir string, out io.Writer) (outcome, error)

var modes = map[string]iteration{"plan": runPlan, "build": runBuild}

// Main runs one iteration of the scripted agent in dir and returns its exit code.
func Main(ctx context.Context, dir string, mode string, stdin io.Reader, stdout io.Writer) int {
	prompt, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
	if err == nil {
		_, err = io.Copy(io.Discard, stdin) // what is past the limit: the loop writes it all
	}
	if err != nil {
		fmt.Fprintf(stdout, "error: reading prompt: %v\n", err)
		return exitFailure
	}
	say(stdout, "read prompt (%d bytes)", len(prompt))
	if stage := hierarchyStage(string(prompt)); stage != nil { // a stage of init --workflow hierarchy
		o, err := stage(ctx, dir, stdout)
		return finish(stdout, o, err)
	}
	run, ok := modes[mode]
	if !ok {
		fmt.Fprintf(stdout, "error: the demo agent supports modes plan and build only, not %q\n", mode)
		return exitUsage
	}
	o, err := run(ctx, dir, stdout)
	return finish(stdout, o, err)
}

// finish prints the promise line for an iteration's outcome and maps it to an exit code.
func finish(stdout io.Writer, o outcome, err error) int {
	switch {
	case err != nil:
		fmt.Fprintf(stdout, "error: %v\n", err)
		return exitFailure
	case o == succeeded:
		fmt.Fprintln(stdout, PromiseSuccess)
		return exitOK
	case o == failed:
		fmt.Fprintln(stdout, PromiseFailure)
		return exitFailure
	default:
		return exitOK
	}
}

// say prints one narration line, like a real agent's log.
func say(out io.Writer, format string, args ...any) {
	fmt.Fprintf(out, format+"\n", args...)
}
