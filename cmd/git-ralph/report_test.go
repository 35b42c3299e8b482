package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
)

// TestReportReaderGone: a write to git-ralph's own stdout or stderr that nobody reads any
// more ends quietly with 141, as git does (killed by SIGPIPE); a broken pipe to a program
// git-ralph started is still an error to report.
func TestReportReaderGone(t *testing.T) {
	epipe := func(path string) error {
		return fmt.Errorf("listing templates: %w", &os.PathError{Op: "write", Path: path, Err: syscall.EPIPE})
	}
	for _, tc := range []struct {
		name  string
		err   error
		code  int
		error bool // whether "error:" is printed
	}{
		{"stdout", epipe(os.Stdout.Name()), 141, false},
		{"stderr", epipe(os.Stderr.Name()), 141, false},
		{"the loop's own code stands", &exitcode.Error{Code: 2, Err: epipe(os.Stdout.Name())}, 2, false},
		{"a child's stdin", epipe("|1"), 1, true},
		{"a read", fmt.Errorf("x: %w", &os.PathError{Op: "read", Path: os.Stdout.Name(), Err: syscall.EPIPE}), 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			if code := report(&w, tc.err); code != tc.code {
				t.Errorf("code %d, want %d", code, tc.code)
			}
			if got := strings.HasPrefix(w.String(), "error: "); got != tc.error {
				t.Errorf("printed %q; want an error printed: %v", w.String(), tc.error)
			}
		})
	}
}

// An exit code that a command (or launch, for it) chose reaches the shell as it chose it:
// quiet when it said so already, with its error (and a wrapper's words) otherwise; any
// other error exits 1.
func TestReportKeepsTheChosenCodes(t *testing.T) {
	busy := &exitcode.Error{Code: exitcode.Busy, Err: errors.New("the workflow ship is running")}
	for _, tc := range []struct {
		name    string
		err     error
		code    int
		printed string
	}{
		{"quiet", exitcode.Quiet(exitcode.Interrupted), 130, ""},
		{"with its error", busy, 75, "error: the workflow ship is running\n"},
		{"wrapped", fmt.Errorf("reject: %w", busy), 75, "error: reject: the workflow ship is running\n"},
		{"no code chosen", errors.New("boom"), 1, "error: boom\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			if code := report(&w, tc.err); code != tc.code || w.String() != tc.printed {
				t.Errorf("exit %d, printed %q; want %d, %q", code, w.String(), tc.code, tc.printed)
			}
		})
	}
}
