package exitcode

import (
	"fmt"
	"syscall"
)

// The exit codes of the commands, beside the loop's own (loop.Status.ExitCode, 0–7) and
// the workflow's (loop/workflow's Exit*): every code a command returns is named here, and
// help.ExitCodes says what each means (help --json, the man page, the README); a test
// (TestExitCodesAreTheCodes) checks that each has its row there.
const (
	// OK: the command did what it was asked (a loop: SUCCESS).
	OK = 0
	// Failure: an error before or outside any iteration (a usage error, a refusal).
	Failure = 1
	// DoctorFailed is doctor's exit code when a check failed: an unattended run would
	// fail (warnings alone exit 0).
	DoctorFailed = Failure
	// The exit codes of `merge` beyond 0 (merged) and 1 (an error): the base branch was
	// left where it was and the loop needs review. Past the loop's codes (0–7), because
	// `loop --worktree NAME --merge` exits with the merge's code after SUCCESS, and a
	// script must not read a conflict as a usage limit (4) or a failing merged result as
	// a budget (5).
	MergeConflict = 8
	MergeInvalid  = 9
	// Busy: another loop holds the work tree's lock, or another run the workflow's
	// (EX_TEMPFAIL).
	Busy = 75
	// Interrupted: a command stopped by SIGINT, SIGTERM, SIGHUP or git ralph cancel --now.
	Interrupted = 130
	// ReaderGone is the exit status of a command whose reader went away (`git ralph
	// templates | head -1`): the status a shell reports for git, which dies of SIGPIPE
	// there. git-ralph catches SIGPIPE (a loop must outlive a closed stream to stop its
	// agent), so its writes fail with EPIPE instead, and it ends as quietly with the same
	// status.
	ReaderGone = 128 + int(syscall.SIGPIPE)
)

// Error ends the command with Code; Err, when set, is printed first.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Quiet is an exit with code alone: the reason has been reported already.
func Quiet(code int) error { return &Error{Code: code} }
