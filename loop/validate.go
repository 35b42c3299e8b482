package loop

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop/testreport"
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
	// Tests is what its output said of the tests against the baseline, with
	// validate_format (see decideTests); nil without one.
	Tests *TestResults
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
	case v.Tests != nil && len(v.Tests.New) > 0:
		return "failed: " + plural(len(v.Tests.New), "test") + " failing that did not fail before this run"
	case v.Tests != nil && len(v.Tests.Targets) > 0:
		return "failed: target " + strings.Join(v.Tests.Targets, ", ") + " did not pass"
	}
	return "failed: " + exitReason(v.ExitCode)
}

// validateTimeout bounds the validate and promise commands.
func (c Config) validateTimeout() time.Duration {
	if c.ValidateTimeout > 0 {
		return c.ValidateTimeout
	}
	return DefaultValidateTimeout
}

// Feedback is the "Previous iteration" section of the next prompt after a failed
// validation: a fresh-context agent remembers nothing, so the feedback goes into the
// prompt, not into a conversation.
func (v Validation) Feedback(iteration int) string {
	advice := "Fix what it reports before anything else."
	switch t := v.Tests; {
	case t != nil && t.Format == testreport.None:
		advice += " (No test results could be read from its output, so its exit code decides.)"
	case t != nil:
		advice = t.advice()
	}
	return v.feedback(iteration, "the validation command", advice)
}

// UntilFeedback is the "Previous iteration" section after the promise command (--until)
// failed: the run is done only when it passes.
func (v Validation) UntilFeedback(iteration int) string {
	return v.feedback(iteration, "the promise command", "The work is done only when it passes: make it pass.")
}

func (v Validation) feedback(iteration int, what, advice string) string {
	var b strings.Builder
	how := "failed with " + exitReason(v.ExitCode)
	if v.Tests != nil && (len(v.Tests.New) > 0 || len(v.Tests.Targets) > 0) {
		how = "failed"
	}
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
