package loop

import (
	"fmt"
	"io"
	"strings"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop/testreport"
)

// teeTo writes to log (which may be nil) and to also.
func teeTo(log, also io.Writer) io.Writer {
	if log == nil {
		return also
	}
	return io.MultiWriter(log, also)
}

// capture keeps the first testreport.MaxInput bytes (and one more, so that the reader
// sees it was cut) of a validate command's output, for its tests' results: the loop's
// own tail keeps the end, where a JUnit report's start is not.
type capture struct{ buf []byte }

func (c *capture) Write(p []byte) (int, error) {
	if room := testreport.MaxInput + 1 - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// TestResults is what validation made of the tests its command named, with
// validate_format: the tests failing now that did not fail before the run (New), those
// that did (Old), the targets that did not pass, and how many tests it read.
type TestResults struct {
	Format  testreport.Format // the format read; None: no test results were found
	Tests   int
	New     []testreport.Test
	Old     []testreport.Test
	Targets []string // validate_targets that did not pass (failed, skipped or did not run)
	Cut     bool     // the output was longer than the reader's bound
}

// maxListed bounds the tests a list names in a record or a prompt; the rest are counted.
const maxListed = 20

// listTests names tests for people, at most maxListed, redacted: "TestA (pkg), TestB
// (pkg) and 3 more".
func listTests(tests []testreport.Test) string {
	var names []string
	for i, t := range tests {
		if i == maxListed {
			names[len(names)-1] += fmt.Sprintf(" and %d more", len(tests)-maxListed)
			break
		}
		names = append(names, t.String())
	}
	return redact.String(strings.Join(names, ", "))
}

// decideTests decides validation v by the tests rep names against the baseline's failing
// ones: it passes when no test fails that did not fail before the run and every target
// passes, whatever the exit code said, unless the command failed for no test (its exit
// code non-zero with no failing test at all) or timed out. A report with no tests leaves
// the exit code's verdict, with a note.
func decideTests(v Validation, rep testreport.Report, failing map[testreport.Test]bool, targets []string) Validation {
	if !v.Ran || v.TimedOut {
		return v
	}
	if len(rep.Tests) == 0 {
		v.Tests = &TestResults{Format: testreport.None}
		return v
	}
	res := &TestResults{Format: rep.Format, Tests: rep.Cases(), Cut: rep.Truncated}
	for _, t := range rep.Failed() {
		if isTarget(t, targets) {
			continue // said with the targets
		}
		if failing[t] {
			res.Old = append(res.Old, t)
		} else {
			res.New = append(res.New, t)
		}
	}
	res.Targets = unmetTargets(rep, targets)
	v.Tests = res
	v.Passed = len(res.New) == 0 && len(res.Targets) == 0 && (v.ExitCode == 0 || len(res.Old) > 0)
	return v
}

func isTarget(t testreport.Test, targets []string) bool {
	for _, name := range targets {
		if t.Matches(name) {
			return true
		}
	}
	return false
}

// unmetTargets are the targets that no passing test of rep matches.
func unmetTargets(rep testreport.Report, targets []string) []string {
	var unmet []string
	for _, name := range targets {
		met := false
		for t, s := range rep.Tests {
			if s == testreport.Pass && t.Matches(name) {
				met = true
				break
			}
		}
		if !met {
			unmet = append(unmet, name)
		}
	}
	return unmet
}

// advice is what the feedback of a failed validation says of its tests: the new
// failures and the targets to fix, then the failures that predate the run, which are
// not the agent's doing.
func (t *TestResults) advice() string {
	var b strings.Builder
	if len(t.New) > 0 {
		fmt.Fprintf(&b, "Failing now and not before this run (fix these first): %s. ", listTests(t.New))
	}
	if len(t.Targets) > 0 {
		fmt.Fprintf(&b, "The target tests that must pass did not: %s. ", redact.String(strings.Join(t.Targets, ", ")))
	}
	if len(t.New) == 0 && len(t.Targets) == 0 {
		b.WriteString("No test failed that passed before this run, but the command failed: fix what it reports. ")
	}
	if len(t.Old) > 0 {
		fmt.Fprintf(&b, "Already failing before this run (not caused by this run; leave them unless the task asks): %s.", listTests(t.Old))
	}
	return strings.TrimSpace(b.String())
}

// plural is "1 test", "3 tests".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
