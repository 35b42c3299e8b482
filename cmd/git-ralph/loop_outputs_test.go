package main

import (
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/eventhooks"
)

// A hook's last line of output with control characters is quoted on stderr.
func TestHookFailureWarningHasNoControlCharacters(t *testing.T) {
	var out strings.Builder
	o := &loopOutputs{}
	o.hookFailed(&out, eventhooks.Result{Call: eventhooks.Call{Name: "on_iteration", Command: "x\ny", Event: "iteration_finished"},
		Err: errString("exit status 1"), Output: "first\n\x1b[31mred\r"})
	if strings.ContainsAny(out.String(), "\r\x1b") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("control characters in %q", out.String())
	}
}

type errString string

func (e errString) Error() string { return string(e) }
