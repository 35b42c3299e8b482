package loop

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/lazyregexp"
)

// The judge's verdicts.
const (
	VerdictPass = "PASS"
	VerdictFail = "FAIL"
)

// maxReasons bounds the judge's reasons kept in the record and put into the next prompt.
const maxReasons = 4 << 10

var (
	verdictTag = lazyregexp.New(`(?s)<verdict>(.*?)</verdict>`)
	reasonsTag = lazyregexp.New(`(?s)<reasons>(.*?)</reasons>`)
)

// errNoAnswer: the judge said nothing at all.
var errNoAnswer = errors.New("the judge printed nothing")

// parseVerdict reads a judge's answer strictly: one verdict, <verdict>PASS</verdict> or
// <verdict>FAIL</verdict> (the same tag may be repeated, never contradicted), and its
// reasons, the text of the last <reasons>…</reasons> or, without one, the rest of the
// answer. Anything else is an error, never a PASS: a judge whose answer cannot be read
// has not accepted the work.
func parseVerdict(answer string) (verdict, reasons string, err error) {
	if strings.TrimSpace(answer) == "" {
		return "", "", errNoAnswer
	}
	tags := verdictTag.FindAllStringSubmatch(answer, -1)
	if len(tags) == 0 {
		return "", "", fmt.Errorf("the judge's answer has no <verdict>PASS</verdict> or <verdict>FAIL</verdict>; it ends: %s", answerEnd(answer))
	}
	for _, t := range tags {
		v := strings.TrimSpace(t[1])
		switch {
		case v != VerdictPass && v != VerdictFail:
			return "", "", fmt.Errorf("the judge's verdict is %q, want PASS or FAIL", oneLine(v, 80))
		case verdict != "" && v != verdict:
			return "", "", errors.New("the judge's answer holds both PASS and FAIL")
		}
		verdict = v
	}
	return verdict, judgeReasons(answer), nil
}

// judgeReasons is the reasons of an answer: the last reasons tag's text, else the answer
// without its verdict tags; bounded and redacted (they go into the record and a prompt).
func judgeReasons(answer string) string {
	text := verdictTag.ReplaceAllString(answer, "")
	if all := reasonsTag.FindAllStringSubmatch(answer, -1); len(all) > 0 {
		text = all[len(all)-1][1]
	}
	return cutRedacted(redact.String(strings.TrimSpace(text)), maxReasons)
}

// answerEnd is the end of an answer on one line, for an error that quotes it.
func answerEnd(answer string) string {
	return oneLine(tailLines(answer, 3, 300), 300)
}
