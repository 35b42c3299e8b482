package launch

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// checkJudge looks for the judge's program before any iteration runs: a misspelt
// --judge would otherwise fail every judged iteration, each after an agent run paid for.
// A preset's name is that preset (its program); anything else is a command.
func (s *Settings) checkJudge() (agentcheck.Result, bool) {
	judge := s.Loop.Judge
	if judge == "" {
		return agentcheck.Result{}, false
	}
	if preset, ok := agentcli.Lookup(judge); ok && preset.InProcess() {
		return s.checkAPI(preset), true
	} else if ok {
		return agentcheck.Program(s.Loop.Dir, preset.Program), true
	}
	return agentcheck.Command(s.Loop.Dir, judge), true
}

// JudgeProblem is checkJudge's finding as an error with a hint, or nil.
func (s *Settings) JudgeProblem() error {
	check, any := s.checkJudge()
	if !any || check.OK {
		return nil
	}
	return hints.Wrap(fmt.Errorf("judge (%s): %s", s.Resolved.Judge.Origin, check.Problem),
		"judge is an agent preset (%s) or a command whose program exists; fix it where it is set ('git ralph config' shows where)", strings.Join(agentcli.Names(), ", "))
}

// showJudgeCheck is the dry run's line about the judge's program.
func showJudgeCheck(w io.Writer, s *Settings) bool {
	if err := s.JudgeProblem(); err != nil {
		var h interface{ Hint() string }
		errors.As(err, &h)
		fail(w, err.Error())
		fmt.Fprintf(w, "    %s\n", display.PrintableText(h.Hint()))
		return false
	}
	if check, any := s.checkJudge(); any {
		fmt.Fprintf(w, "  ✓ judge program exists: %s\n", display.Printable(orWhat(check)))
		showJudgeMode(w, s.Loop.Judge)
	}
	return true
}

// showJudgeMode says how a preset judge runs: in its CLI's read-only mode, with that
// command line, or with the agent's own permissions where the CLI has no such mode. A
// judge command runs as written, which the settings above show.
func showJudgeMode(w io.Writer, judge string) {
	preset, ok := agentcli.Lookup(judge)
	if !ok {
		return
	}
	if preset.InProcess() {
		fmt.Fprintf(w, "    the judge is offered only the tools that read (read_file, list_dir, glob, grep)\n")
		return
	}
	if as, readOnly := preset.AsJudge(); readOnly {
		fmt.Fprintf(w, "    the judge runs in %s's read-only mode: %s\n", preset.Name, display.Printable(strings.Join(as.Argv(""), " ")))
		return
	}
	fmt.Fprintf(w, "    the judge runs with the agent's permissions: %s has no read-only mode git-ralph knows; a change it makes gives no verdict\n", preset.Name)
}

// orWhat is where a program was found, or why it was not looked up.
func orWhat(c agentcheck.Result) string {
	if c.Path != "" {
		return c.Path
	}
	return c.Program + " (" + c.Note + ")"
}
