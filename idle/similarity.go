package idle

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// DefaultCompareTimeout bounds one comparison of two texts. Line-mode diffs of the texts the
// loop compares (a validation failure's tail, an agent's final message: kilobytes) take
// microseconds; the bound is for the worst case, two long texts alike in scattered places,
// where Myers' algorithm grows with the product of the lengths.
const DefaultCompareTimeout = 15 * time.Millisecond

// maxComparedLines bounds the lines of each text a comparison reads (its last ones): go-diff
// stands for each distinct line by one rune and panics past about a million of them.
const maxComparedLines = 20000

// Likeness is how alike two texts are.
type Likeness struct {
	Percent int // lines in common, as a share of both texts' lines (0–100)
	// Coarse means the diff ran into its time limit and gave up matching what was left:
	// Percent is then a lower bound (what it did match), never more than the truth.
	Coarse bool
}

// Similarity compares two texts line by line with go-diff's line mode: each distinct line
// becomes one rune (DiffLinesToChars), Myers' diff runs on the runes (DiffMain, bounded by
// limit), and the lines the diff keeps equal count as common. The result is
// 2·common / (lines of a + lines of b), in percent, the measure of Python's difflib: 100 for
// the same lines in the same order, 0 for no line in common, and an inserted or changed
// line costs the same whichever text is longer.
//
// Lines are compared as normalised by comparable: runs of digits count as one digit (the
// timings, counts, addresses and pids that differ between two runs of the same failing test)
// and blank lines and trailing spaces do not count. Two texts with no line left are 100 %
// alike: callers decide what two empty texts mean.
func Similarity(a, b string, limit time.Duration) Likeness {
	started := time.Now()
	return likeness(comparable(a, true), comparable(b, true), started, limit)
}

// WordSimilarity compares two pieces of prose, such as an agent's messages, as Similarity
// compares lines, each word standing for a line: in prose a paragraph is one line, and a
// word changed would change all of it. Numbers count as written: in a message they say
// something ("step 3 of 7").
func WordSimilarity(a, b string, limit time.Duration) Likeness {
	started := time.Now()
	return likeness(comparable(words(a), false), comparable(words(b), false), started, limit)
}

// words is text with each word on a line of its own.
func words(text string) string {
	return strings.Join(strings.Fields(text), "\n")
}

// likeness is the measure of Similarity on two texts already made comparable; the
// comparison began at started.
func likeness(a, b string, started time.Time, limit time.Duration) Likeness {
	if a == b {
		return Likeness{Percent: 100}
	}
	if limit <= 0 {
		limit = DefaultCompareTimeout
	}
	dmp := diffmatchpatch.New()
	ca, cb, _ := dmp.DiffLinesToChars(a, b)
	// the limit bounds the whole comparison: the diff gets what preparing the texts left
	// of it (a tenth at least, so that alike texts still get matched)
	dmp.DiffTimeout = max(limit-time.Since(started), limit/10)
	diffStarted := time.Now()
	diffs := dmp.DiffMain(ca, cb, false)
	coarse := time.Since(diffStarted) >= dmp.DiffTimeout
	// Each rune of ca and cb stands for one line, so counting runes counts lines; turning
	// the runes back into lines (DiffCharsToLines) would only cost time.
	common := 0
	for _, d := range diffs {
		if d.Type == diffmatchpatch.DiffEqual {
			common += utf8.RuneCountInString(d.Text)
		}
	}
	total := utf8.RuneCountInString(ca) + utf8.RuneCountInString(cb)
	return Likeness{Percent: 200 * common / total, Coarse: coarse}
}

// comparable is text as Similarity compares it: its last maxComparedLines non-blank lines,
// each with trailing spaces removed (and, with mask, every run of digits made one "0"),
// each ending in a newline (so the last line matches the same line elsewhere).
func comparable(text string, mask bool) string {
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimRightFunc(line, unicode.IsSpace); line != "" {
			kept = append(kept, line)
		}
	}
	kept = kept[max(0, len(kept)-maxComparedLines):]
	var b strings.Builder
	b.Grow(len(text))
	for _, line := range kept {
		if mask {
			writeMasked(&b, line)
		} else {
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// writeMasked writes line with every run of ASCII digits replaced by one "0".
func writeMasked(b *strings.Builder, line string) {
	inDigits := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c >= '0' && c <= '9' {
			if !inDigits {
				b.WriteByte('0')
			}
			inDigits = true
			continue
		}
		inDigits = false
		b.WriteByte(c)
	}
}
