package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// DefaultValidateTimeout bounds the validate command when the configuration does not.
const DefaultValidateTimeout = 10 * time.Minute

// validationKept is how much of the validate command's output the loop keeps in memory;
// the whole output (up to the agent's buffer size) goes to the iteration's validation.log.
const validationKept = 64 << 10

// feedbackLines and feedbackBytes bound the part of a failed validation's output that goes
// into the next prompt: the end, where test runners and compilers sum up.
const (
	feedbackLines = 60
	feedbackBytes = 8 << 10
)

// Validation is what the validate command said about one iteration.
type Validation struct {
	Command  string
	Ran      bool
	Passed   bool
	ExitCode int
	TimedOut bool
	Duration time.Duration
	Tail     string // the end of its output, for the next prompt
}

// Summary is the record's word for the result: "passed", "failed: exit code 2", ….
func (v Validation) Summary() string {
	switch {
	case !v.Ran:
		return ""
	case v.Passed:
		return "passed"
	case v.TimedOut:
		return "timed out"
	}
	return "failed: " + exitReason(v.ExitCode)
}

// validate runs the validate command in the repository root, like the agent: its own
// process group, a timeout, nothing left running afterwards. It runs even after an
// interrupt has begun (the caller skips it then), so it takes its own context.
func (r *runner) validate(ctx context.Context, i int, logPath string) Validation {
	return r.check(ctx, i, r.cfg.ValidateCmd, logPath)
}

// check runs a command that judges iteration i (validate, until) as validate describes,
// saving its output at logPath.
func (r *runner) check(ctx context.Context, i int, command, logPath string) Validation {
	v := Validation{Command: command}
	if strings.TrimSpace(command) == "" {
		return v
	}
	var log io.Writer
	if logPath == "" { // nothing to keep it with (the promise checked before any iteration)
	} else if f, err := os.Create(logPath); err != nil {
		r.report(Warning{Message: fmt.Sprintf("cannot save the validation output: %v", err)})
	} else {
		defer f.Close()
		saved := redact.NewWriter(f) // like the agent's output: the validation log holds no secrets
		defer saved.Flush()
		log = saved
	}
	timeout := r.cfg.ValidateTimeout
	if timeout <= 0 {
		timeout = DefaultValidateTimeout
	}
	res, err := agent.Run(ctx, agent.Spec{Command: command, Dir: r.cfg.Dir, Env: r.agentEnv(i),
		Timeout: timeout, Grace: r.deps.Grace, MaxOutput: validationKept, Log: log,
		Hurry: r.deps.Hurry, Marker: "RALPH_RUN=" + r.res.Run, Watchdogs: r.dogs})
	if err != nil {
		return Validation{Command: command, Ran: true, ExitCode: 127, Tail: err.Error()}
	}
	if res.Interrupted {
		return v // stopped by Ctrl+C: it said nothing about the iteration
	}
	v.Ran, v.ExitCode, v.TimedOut, v.Duration = true, res.ExitCode, res.TimedOut, res.Duration
	v.Passed = res.ExitCode == 0 && res.Signal == 0 && !res.TimedOut && !res.Interrupted
	v.Tail = tailLines(string(res.Output), feedbackLines, feedbackBytes)
	return v
}

// Feedback is the "Previous iteration" section of the next prompt after a failed
// validation: a fresh-context agent remembers nothing, so the feedback goes into the
// prompt, not into a conversation.
func (v Validation) Feedback(iteration int) string {
	return v.feedback(iteration, "the validation command", "Fix what it reports before anything else.")
}

// UntilFeedback is the "Previous iteration" section after the promise command (--until)
// failed: the run is done only when it passes.
func (v Validation) UntilFeedback(iteration int) string {
	return v.feedback(iteration, "the promise command", "The work is done only when it passes: make it pass.")
}

func (v Validation) feedback(iteration int, what, advice string) string {
	var b strings.Builder
	how := "failed with " + exitReason(v.ExitCode)
	if v.TimedOut {
		how = "did not finish within its timeout and was stopped"
	}
	fmt.Fprintf(&b, "After iteration %d %s `%s` %s.\n", iteration, what, v.Command, how)
	b.WriteString(advice)
	if strings.TrimSpace(v.Tail) != "" {
		fence := codeFence(v.Tail)
		fmt.Fprintf(&b, " The end of its output:\n\n%s\n%s\n%s", fence, strings.TrimRight(v.Tail, "\n"), fence)
	}
	return b.String()
}

// tailLines is the end of s: at most lines lines and max bytes, cut at a line start.
func tailLines(s string, lines, max int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) > max {
		// redacted before the cut, which could leave the end of a key without its prefix
		s = redact.String(s)
	}
	if len(s) > max {
		s = s[len(s)-max:]
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	for n, i := 0, len(s); i > 0; {
		i = strings.LastIndexByte(s[:i], '\n')
		if n++; n == lines && i >= 0 {
			return s[i+1:]
		}
		if i < 0 {
			break
		}
	}
	return s
}

// codeFence is a run of backticks longer than any in text, so the output cannot close
// the fence early.
func codeFence(text string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
