package launch

import "fmt"

// The exit codes of starting a loop beyond its own statuses (loop.Status.ExitCode): the
// command package names them in its table (errors.go), and help.ExitCodes has their rows.
const (
	ExitOK          = 0   // the command did what it was asked (a loop: SUCCESS)
	ExitFailed      = 1   // an error before or outside any iteration
	ExitBusy        = 75  // another loop holds the work tree's lock (EX_TEMPFAIL)
	ExitInterrupted = 130 // SIGINT, SIGTERM, SIGHUP or git ralph cancel --now
)

// ExitError ends the command with Code; Err, when set, is printed first. The command
// package turns it into its own (exitFrom).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit is a quiet exit with code: the reason has been reported already.
func Exit(code int) error { return &ExitError{Code: code} }
