package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
)

// report prints err in git's grammar and returns the exit code it maps to: the code
// of an exitcode.Error, otherwise 1 (an error before or outside any iteration).
func report(w io.Writer, err error) int {
	if err == nil {
		return exitcode.OK
	}
	code := exitcode.Failure
	var exit *exitcode.Error
	if errors.As(err, &exit) {
		code = exit.Code
		if exit.Err == nil {
			return code
		}
	}
	if readerGone(err) {
		if exit == nil {
			code = exitcode.ReaderGone
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
