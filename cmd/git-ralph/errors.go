package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
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

// exitCode is a quiet exit with code: the reason has been reported already.
func exitCode(code int) error { return &exitError{code: code} }

// report prints err in git's grammar and returns the exit code it maps to: the code
// of an exitError, otherwise 1 (an error before or outside any iteration).
func report(w io.Writer, err error) int {
	if err == nil {
		return 0
	}
	code := 1
	var exit *exitError
	if errors.As(err, &exit) {
		code = exit.code
		if exit.err == nil {
			return code
		}
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
