package apiagent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/loop/agent"
)

// bashGrace is how long a bash call's processes get between SIGTERM and SIGKILL when
// stopped: its timeout, the iteration's interruption, or what it left running.
const bashGrace = 2 * time.Second

// bashHeader is room kept in a bash result's bound for the lines before the output: the
// output's end is kept (where the failure is), so that the bound does not cut it.
const bashHeader = 128

// bashSettings say how the bash tool runs its commands.
type bashSettings struct {
	timeout time.Duration // the longest a call may run
	// env is added to git-ralph's environment: the marker, and the key's variables
	// emptied, so that a command cannot print the key into the conversation.
	env       []string
	marker    string           // see agent.Spec.Marker
	watchdogs *agent.Watchdogs // see agent.Spec.Watchdogs; nil: none
}

type bashArgs struct {
	Command        string `json:"command"`
	TimeoutSeconds int    `json:"timeout_seconds"`
}

// runBash runs the command as loop/agent runs an agent: `sh -c` in a session and process
// group of its own, with no input, stopped at its timeout, and nothing it started left
// running when it returns (its group, and the processes carrying the marker that left it
// with setsid). Its exit code and the end of its output are the result.
func (t *toolbox) runBash(ctx context.Context, a bashArgs) (string, error) {
	if strings.TrimSpace(a.Command) == "" {
		return "", refuse("the command is empty")
	}
	timeout := t.bash.timeout
	if asked := time.Duration(a.TimeoutSeconds) * time.Second; asked > 0 && asked < timeout {
		timeout = asked
	}
	res, err := agent.Run(ctx, agent.Spec{
		Command: a.Command, Dir: t.dir, Env: t.bash.env, Timeout: timeout, Grace: bashGrace,
		MaxOutput: max(t.maxOut-bashHeader, 64), Marker: t.bash.marker, Watchdogs: t.bash.watchdogs,
	})
	if err != nil {
		return "", refuse("the command could not start: %v", err)
	}
	return bashResult(res, timeout), nil
}

// bashResult is what the model is told of a finished command.
func bashResult(res agent.Result, timeout time.Duration) string {
	var b strings.Builder
	switch {
	case res.Interrupted:
		b.WriteString("[the iteration was interrupted: the command was stopped]\n")
	case res.TimedOut:
		fmt.Fprintf(&b, "[the command ran over its %s and was stopped, with everything it started]\n", timeout)
	case res.Signal != 0:
		fmt.Fprintf(&b, "[killed by signal %d]\n", int(res.Signal))
	default:
		fmt.Fprintf(&b, "exit code %d\n", res.ExitCode)
	}
	if res.Truncated {
		fmt.Fprintf(&b, "[the output was %d bytes: only its last %d are shown]\n", res.OutputBytes, len(res.Output))
	}
	b.Write(res.Output)
	return b.String()
}
