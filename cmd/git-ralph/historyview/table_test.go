package historyview

import (
	"testing"

	"github.com/git-ralph/git-ralph/history"
)

// The history's outcome column names what decided an iteration: a passing promise that the
// judge overruled (or never looked at) must not read as if the promise had ended the run.
func TestOutcomeTextWithAJudgeAndAPromise(t *testing.T) {
	for _, c := range []struct {
		rec  history.Record
		want string
	}{
		{history.Record{Outcome: "done", Until: "passed", Judge: &history.Judgement{Verdict: "PASS"}}, "done (promise passed)"},
		{history.Record{Outcome: "success", Until: "passed", Judge: &history.Judgement{Verdict: "FAIL"}}, "success (promise passed, judge: FAIL)"},
		{history.Record{Outcome: "failure", Until: "passed", Judge: &history.Judgement{Verdict: "error"}}, "failure (promise passed, judge: error)"},
		{history.Record{Outcome: "success", Until: "failed: exit code 1", Judge: &history.Judgement{Verdict: "FAIL"}}, "success (promise failed, judge: FAIL)"},
		{history.Record{Outcome: "success", Judge: &history.Judgement{Verdict: "FAIL"}}, "success (judge: FAIL)"},
		{history.Record{Outcome: "success", Until: "failed: exit code 1"}, "success (promise failed)"},
	} {
		if got := outcomeText(c.rec); got != c.want {
			t.Errorf("outcomeText(%s, until %q, judge %v) = %q, want %q", c.rec.Outcome, c.rec.Until, c.rec.Judge, got, c.want)
		}
	}
}
