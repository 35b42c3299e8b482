package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/prompts"
)

func TestParseVerdict(t *testing.T) {
	for _, c := range []struct {
		name, answer, verdict, reasons, err string
	}{
		{"pass", "<verdict>PASS</verdict>", VerdictPass, "", ""},
		{"fail with reasons", "Looked at it.\n<verdict>FAIL</verdict>\n<reasons>\nno test for the empty input\n</reasons>\n", VerdictFail, "no test for the empty input", ""},
		{"spaces inside the tag", "<verdict> PASS\n</verdict>", VerdictPass, "", ""},
		{"fail without a reasons tag keeps the rest", "The parser still panics.\n<verdict>FAIL</verdict>", VerdictFail, "The parser still panics.", ""},
		{"the last reasons tag", "<reasons>draft</reasons><verdict>FAIL</verdict><reasons>final</reasons>", VerdictFail, "final", ""},
		{"the same verdict twice", "<verdict>FAIL</verdict> … as I said: <verdict>FAIL</verdict>", VerdictFail, "… as I said:", ""},
		{"nothing", " \n\t", "", "", "the judge printed nothing"},
		{"no tag", "Looks good to me: PASS", "", "", "has no <verdict>PASS</verdict> or <verdict>FAIL</verdict>; it ends: Looks good to me: PASS"},
		{"lower case", "<verdict>pass</verdict>", "", "", `the judge's verdict is "pass", want PASS or FAIL`},
		{"another word", "<verdict>LGTM</verdict>", "", "", `the judge's verdict is "LGTM"`},
		{"both", "<verdict>PASS</verdict> no wait <verdict>FAIL</verdict>", "", "", "both PASS and FAIL"},
		{"unclosed", "<verdict>PASS", "", "", "has no <verdict>"},
		{"upper-case tag name", "<VERDICT>PASS</VERDICT>", "", "", "has no <verdict>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			verdict, reasons, err := parseVerdict(c.answer)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want one with %q (verdict %q)", err, c.err, verdict)
			case c.err != "" && verdict != "":
				t.Fatalf("verdict %q with an error", verdict)
			}
			if verdict != c.verdict || reasons != c.reasons {
				t.Errorf("got %q, %q; want %q, %q", verdict, reasons, c.verdict, c.reasons)
			}
		})
	}
}

func TestJudgeReasonsAreBoundedAndRedacted(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("A", 95) + "AA"
	_, reasons, err := parseVerdict("<verdict>FAIL</verdict><reasons>the key " + key + " is committed; " + strings.Repeat("more ", 2000) + "</reasons>")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(reasons, key) {
		t.Error("the reasons keep a secret")
	}
	if len(reasons) > maxReasons+len("…") {
		t.Errorf("the reasons are %d bytes, bound %d", len(reasons), maxReasons)
	}
}

func TestCappedKeepsWholeLines(t *testing.T) {
	c := capped{limit: 10}
	c.Write([]byte("line one\nline two\n"))
	c.Write([]byte("more\n"))
	if got, left := c.text(); got != "line one\n" || left != 14 {
		t.Errorf("kept %q, left out %d", got, left)
	}
	c = capped{limit: 100}
	c.Write([]byte("all of it"))
	if got, left := c.text(); got != "all of it" || left != 0 {
		t.Errorf("kept %q, left out %d", got, left)
	}
}

func TestJudgeFeedback(t *testing.T) {
	j := Judgement{Judge: "sh judge.sh", Verdict: VerdictFail, Reasons: "no test for ``` fences"}
	if got := j.feedback(2, true); got != "After iteration 2 the validation passed, but the judge (`sh judge.sh`) found the task not done. "+
		"Address its reasons before anything else:\n\n````\nno test for ``` fences\n````" {
		t.Errorf("validated: %q", got)
	}
	j.Reasons = ""
	if got := j.feedback(3, false); !strings.HasPrefix(got, "After iteration 3 the judge (`sh judge.sh`) found the task not done.") ||
		!strings.Contains(got, "(the judge gave no reasons)") {
		t.Errorf("not validated, no reasons: %q", got)
	}
}

func TestWhichIterationsAreJudged(t *testing.T) {
	live, stopped := context.Background(), cancelled()
	passed, failed, unran := Validation{Ran: true, Passed: true}, Validation{Ran: true}, Validation{}
	for _, c := range []struct {
		name     string
		judge    string
		validate string
		ctx      context.Context
		class    classification
		val      Validation
		want     bool
	}{
		{"success, validation passed", "j", "make", live, classification{outcome: OutcomeSuccess}, passed, true},
		{"done, no validation", "j", "", live, classification{outcome: OutcomeDone}, unran, true},
		{"no judge", "", "", live, classification{outcome: OutcomeDone}, unran, false},
		{"validation failed", "j", "make", live, classification{outcome: OutcomeDone}, failed, false},
		{"validation interrupted", "j", "make", live, classification{outcome: OutcomeDone}, unran, false},
		{"agent failed", "j", "", live, classification{outcome: OutcomeFailure}, unran, false},
		{"halted", "j", "", live, classification{outcome: OutcomeHalted}, unran, false},
		{"the run stops anyway", "j", "", live, classification{outcome: OutcomeSuccess, halt: halt{stop: StatusLimited}}, unran, false},
		{"interrupted", "j", "", stopped, classification{outcome: OutcomeDone}, unran, false},
	} {
		jg := newJudge(Config{Judge: c.judge, ValidateCmd: c.validate}, prompts.Section{}, procs{}, time.Now)
		if got := jg.looksAt(c.ctx, c.class, c.val); got != c.want {
			t.Errorf("%s: judged %v, want %v", c.name, got, c.want)
		}
	}
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestJudgeLogIsBounded(t *testing.T) {
	var b strings.Builder
	h := &head{w: &b, room: 5}
	for _, p := range []string{"abc", "defg", "hij"} {
		if n, err := h.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if b.String() != "abcde" {
		t.Errorf("passed on %q", b.String())
	}
}
