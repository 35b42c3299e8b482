package loop

import (
	"strings"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/history/redact"
)

// excerptRunes is how many characters of a failed agent's output its record keeps from
// each end: enough to see why it failed (the start: how it was called; the end: what it
// said last) without opening the output log.
const excerptRunes = 500

// excerptWindow is how much of each end is redacted before the excerpt is cut from it,
// so that a secret is found whole rather than cut where the excerpt ends.
const excerptWindow = 16 << 10

// excerptGap marks what an excerpt leaves out.
const excerptGap = "\n[…]\n"

// outputExcerpt is a failed or halted agent's output in brief for its record: the first
// and the last excerptRunes characters (all of it when it is no longer than both),
// secrets redacted, with excerptGap where the middle is left out. out is the output
// kept, the end of the total bytes printed when there were more: its start then opens
// with the gap too.
func outputExcerpt(out []byte, total int64) string {
	text := strings.ToValidUTF8(string(out), "\uFFFD")
	lead := ""
	if total > int64(len(out)) {
		lead = strings.TrimPrefix(excerptGap, "\n")
	}
	if len(text) > 2*excerptWindow {
		head := redact.String(strings.ToValidUTF8(text[:excerptWindow], ""))
		tail := redact.String(strings.ToValidUTF8(text[len(text)-excerptWindow:], ""))
		return lead + firstRunes(head, excerptRunes) + excerptGap + lastRunes(tail, excerptRunes)
	}
	text = redact.String(text)
	if utf8.RuneCountInString(text) <= 2*excerptRunes {
		return lead + text
	}
	return lead + firstRunes(text, excerptRunes) + excerptGap + lastRunes(text, excerptRunes)
}

// firstRunes is the first n characters of s.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// lastRunes is the last n characters of s.
func lastRunes(s string, n int) string {
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if n--; n == 0 {
			return s[i:]
		}
	}
	return s
}
