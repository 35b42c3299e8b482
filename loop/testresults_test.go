package loop

import (
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/loop/testreport"
)

func TestValidationDecidedByTheTestsAgainstTheBaseline(t *testing.T) {
	old, good, target := testreport.Test{Suite: "p", Name: "TestOld"}, testreport.Test{Suite: "p", Name: "TestGood"}, testreport.Test{Suite: "p", Name: "TestTarget"}
	failing := map[testreport.Test]bool{old: true}
	report := func(s map[testreport.Test]testreport.Status) testreport.Report {
		return testreport.Report{Format: testreport.TAP, Tests: s}
	}
	failed := Validation{Command: "make test", Ran: true, ExitCode: 1}
	tests := []struct {
		name    string
		v       Validation
		rep     testreport.Report
		targets []string
		passed  bool
		summary string
	}{
		{"only an old failure", failed, report(map[testreport.Test]testreport.Status{old: "fail", good: "pass"}), nil, true, "passed"},
		{"a new failure", failed, report(map[testreport.Test]testreport.Status{old: "fail", good: "fail"}), nil, false,
			"failed: 1 test failing that did not fail before this run"},
		{"a target not passing", failed, report(map[testreport.Test]testreport.Status{old: "fail", target: "skip"}), []string{"TestTarget"}, false,
			"failed: target TestTarget did not pass"},
		{"a target that did not run", Validation{Ran: true}, report(map[testreport.Test]testreport.Status{good: "pass"}), []string{"TestTarget"}, false,
			"failed: target TestTarget did not pass"},
		{"a failure no test explains", failed, report(map[testreport.Test]testreport.Status{good: "pass"}), nil, false, "failed: exit code 1"},
		{"timed out", Validation{Ran: true, TimedOut: true}, report(map[testreport.Test]testreport.Status{good: "pass"}), nil, false, "timed out"},
		{"no tests read", failed, testreport.Report{}, nil, false, "failed: exit code 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decideTests(tt.v, tt.rep, failing, tt.targets)
			if got.Passed != tt.passed || got.Summary() != tt.summary {
				t.Errorf("passed %v, %q; want %v, %q", got.Passed, got.Summary(), tt.passed, tt.summary)
			}
		})
	}
}

func TestFeedbackSeparatesNewFromOldFailures(t *testing.T) {
	v := Validation{Command: "go test ./...", Ran: true, ExitCode: 1, Tail: "FAIL",
		Tests: &TestResults{Format: testreport.GoTestJSON, New: []testreport.Test{{Suite: "p", Name: "TestNew"}}, Old: []testreport.Test{{Suite: "p", Name: "TestOld"}}}}
	fb := v.Feedback(3)
	for _, want := range []string{"After iteration 3 the validation command `go test ./...` failed.",
		"Failing now and not before this run (fix these first): TestNew (p).", "Already failing before this run", "TestOld (p)"} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback lacks %q:\n%s", want, fb)
		}
	}
	none := Validation{Command: "x", Ran: true, ExitCode: 2, Tests: &TestResults{}}
	if fb := none.Feedback(1); !strings.Contains(fb, "failed with exit code 2") || !strings.Contains(fb, "No test results could be read") {
		t.Errorf("no tests read: %s", fb)
	}
}
