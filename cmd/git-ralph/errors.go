package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
)

// exitError ends the program with a specific exit code; err, when set, is printed first.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exitBusy is the exit code when another loop holds the work tree's lock: launch's, which
// takes the lock.
const exitBusy = launch.ExitBusy

// exitFrom turns an exit code that launch chose into the command's exitError.
func exitFrom(err error) error {
	var exit *launch.ExitError
	if !errors.As(err, &exit) {
		return err
	}
	if exit == err || exit.Err == nil { // as launch returned it, or a quiet exit
		return &exitError{code: exit.Code, err: exit.Err}
	}
	return &exitError{code: exit.Code, err: err}
}

// exitCode is a quiet exit with code: the reason has been reported already.
func exitCode(code int) error { return &exitError{code: code} }

// report prints err in git's grammar and returns the exit code it maps to: the code
// of an exitError, otherwise 1 (an error before or outside any iteration).
func report(w io.Writer, err error) int {
	if err == nil {
		return exitSuccess
	}
	code := exitFailure
	var exit *exitError
	if errors.As(err, &exit) {
		code = exit.code
		if exit.err == nil {
			return code
		}
	}
	if readerGone(err) {
		if exit == nil {
			code = exitReaderGone
		}
		return code
	}
	// errors name files, commands and values from the repository: spell out whatever in
	// them would drive the terminal
	fmt.Fprintf(w, "error: %s\n", display.PrintableText(err.Error()))
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		for _, line := range strings.Split(display.PrintableText(h.Hint()), "\n") {
			fmt.Fprintf(w, "hint: %s\n", line)
		}
	}
	return code
}

// The exit codes of the commands, beside the loop's own (loop.Status.ExitCode, 0–7) and
// the workflow's (loop/workflow's Exit*): every code a command returns is named here, and
// help.ExitCodes says what each means (help --json, the man page, the README); a test
// (TestExitCodesAreTheCodes) checks that each has its row there. exitBusy, a loop's lock
// held by another, is declared beside the lock's acquiring (loop_cmd.go).
const (
	// exitSuccess: the command did what it was asked.
	exitSuccess = 0
	// exitFailure: an error before or outside any iteration (a usage error, a refusal).
	exitFailure = 1
	// exitDoctorFailed is doctor's exit code when a check failed: an unattended run would
	// fail (warnings alone exit 0).
	exitDoctorFailed = exitFailure
	// The exit codes of `merge` beyond 0 (merged) and 1 (an error): the base branch was
	// left where it was and the loop needs review. Past the loop's codes (0–7), because
	// `loop --worktree NAME --merge` exits with the merge's code after SUCCESS, and a
	// script must not read a conflict as a usage limit (4) or a failing merged result as
	// a budget (5).
	exitMergeConflict = 8
	exitMergeInvalid  = 9
	// exitInterrupted is the exit code of a command stopped by SIGINT or SIGTERM.
	exitInterrupted = 130
	// exitReaderGone is the exit status of a command whose reader went away (`git ralph
	// templates | head -1`): the status a shell reports for git, which dies of SIGPIPE
	// there. git-ralph catches SIGPIPE (see watchSignals: a loop must outlive a closed
	// stream to stop its agent), so its writes fail with EPIPE instead, and it ends as
	// quietly with the same status.
	exitReaderGone = 128 + int(syscall.SIGPIPE)
)

// readerGone reports whether err is a write to git-ralph's own standard output or error
// that failed because nothing reads them any more. A broken pipe to a program git-ralph
// started (an agent's stdin) is an error to report, so only these two files count.
func readerGone(err error) bool {
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "write" || !errors.Is(pe.Err, syscall.EPIPE) {
		return false
	}
	return pe.Path == os.Stdout.Name() || pe.Path == os.Stderr.Name()
}

// reviewCode is the exit code of a merge the queue left for review, which says its
// problem (mergequeue.Outcome's: "conflict", or the validation's failure).
func reviewCode(problem string) int {
	if problem == "conflict" {
		return exitMergeConflict
	}
	return exitMergeInvalid
}
