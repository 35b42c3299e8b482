package serve

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// The words a changed line changed: in each run of removed lines followed by a run of
// added ones, the first removed line is paired with the first added one, the second with
// the second, and so on; the words that differ between the two are marked, so that a
// renamed variable or a changed number stands out of a line that is otherwise the same.
// Lines too unlike each other (less than half of the shorter in common) are left whole:
// marking nearly all of both says nothing the line's tint does not.

// wordsMax bounds the lines compared word by word: a longer line (minified code, data) is
// tinted whole, and a page of them costs no more than a page of short ones.
const wordsMax = 1 << 10

// wordsTimeout bounds one comparison; past it go-diff answers with a coarser diff.
const wordsTimeout = 5 * time.Millisecond

// span is a part of a line's text, in bytes.
type span struct{ from, to int }

// markWords marks the changed words of each pair of a removed and an added line.
func markWords(lines []diffLine) {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = wordsTimeout
	for i := 0; i < len(lines); {
		if lines[i].Class != "del" {
			i++
			continue
		}
		var dels, adds []int
		i = run(lines, i, "del", &dels)
		i = run(lines, i, "add", &adds)
		for k := range min(len(dels), len(adds)) {
			pairWords(dmp, &lines[dels[k]], &lines[adds[k]])
		}
	}
}

// run collects the lines of the class from i on, and returns where the run ends. A
// "\ No newline at end of file" line is part of the run it follows: a change of a file's
// last line puts one between the removed line and the added one.
func run(lines []diffLine, i int, class string, into *[]int) int {
	for ; i < len(lines); i++ {
		switch {
		case lines[i].Class == class:
			*into = append(*into, i)
		case lines[i].Class == "" && lines[i].Marker == "" && len(*into) > 0: // "\ No newline …"
		default:
			return i
		}
	}
	return i
}

// pairWords marks the words that differ between a removed line and the added line
// paired with it, when they have enough in common.
func pairWords(dmp *diffmatchpatch.DiffMatchPatch, old, new *diffLine) {
	a, b := old.Code, new.Code
	if a == b || len(a) > wordsMax || len(b) > wordsMax {
		return
	}
	gone, added, common := changedWords(dmp, a, b)
	if common*2 < min(len(a), len(b)) || len(gone)+len(added) == 0 {
		return
	}
	old.Parts = markSpans(old.Parts, gone)
	new.Parts = markSpans(new.Parts, added)
}

// changedWords compares a and b word by word: the spans of a that b lacks, those of b
// that a lacks, and the bytes they have in common. The words they begin and end with
// alike are set aside first: most pairs differ in a word or two, which go-diff then
// compares alone.
func changedWords(dmp *diffmatchpatch.DiffMatchPatch, a, b string) (gone, added []span, common int) {
	pre, suf := commonEnds(a, b)
	gone, added, common = middleWords(dmp, a[pre:len(a)-suf], b[pre:len(b)-suf])
	if common < 0 {
		return nil, nil, 0 // nothing in common said: the lines are left whole
	}
	for i := range gone {
		gone[i].from, gone[i].to = gone[i].from+pre, gone[i].to+pre
	}
	for i := range added {
		added[i].from, added[i].to = added[i].from+pre, added[i].to+pre
	}
	return gone, added, common + pre + suf
}

// commonEnds are the bytes a and b begin and end with alike, cut back to whole words.
func commonEnds(a, b string) (pre, suf int) {
	n := min(len(a), len(b))
	for pre < n && a[pre] == b[pre] {
		pre++
	}
	for pre > 0 && pre < n && sameWord(a[pre-1], a[pre]) || pre > 0 && pre < len(b) && sameWord(b[pre-1], b[pre]) {
		pre--
	}
	for suf < n-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	for suf > 0 && (suf < len(a)-pre && sameWord(a[len(a)-suf], a[len(a)-1-suf]) || suf < len(b)-pre && sameWord(b[len(b)-suf], b[len(b)-1-suf])) {
		suf--
	}
	return pre, suf
}

// sameWord says whether two neighbouring bytes are of one word of splitWords.
func sameWord(x, y byte) bool {
	blank := func(c byte) bool { return c == ' ' || c == '\t' }
	return isWord(x) && isWord(y) || blank(x) && blank(y)
}

// middleWords compares a and b word by word with go-diff; common is -1 when go-diff's
// answer cannot be read back into the words.
func middleWords(dmp *diffmatchpatch.DiffMatchPatch, a, b string) (gone, added []span, common int) {
	if gone, added, ok := wholeWords(a, b); ok {
		return gone, added, 0
	}
	wa, wb := splitWords(a), splitWords(b)
	ra, rb := encodeWords(wa, wb)
	return spansOf(dmp.DiffCleanupSemantic(dmp.DiffMainRunes(ra, rb, false)), wa, wb)
}

// wholeWords are the spans of a and b when there is no need to diff them: one empty, or
// one a single word the other does not hold (most changes: a word for others, none of
// which it is); ok is false for the others.
func wholeWords(a, b string) (gone, added []span, ok bool) {
	switch {
	case a == "" && b == "":
		return nil, nil, true
	case a == "":
		return nil, []span{{0, len(b)}}, true
	case b == "":
		return []span{{0, len(a)}}, nil, true
	case oneWord(a) && !strings.Contains(b, a) || oneWord(b) && !strings.Contains(a, b):
		return []span{{0, len(a)}}, []span{{0, len(b)}}, true
	}
	return nil, nil, false
}

// spansOf reads go-diff's answer on the words wa and wb (each a rune of its text) back
// into the bytes of each side: the spans gone from a, added in b, and how many bytes
// they have in common; common is -1 when the answer does not add up to the words given.
func spansOf(diffs []diffmatchpatch.Diff, wa, wb []string) (gone, added []span, common int) {
	ca, cb := &wordCursor{words: wa}, &wordCursor{words: wb}
	for _, d := range diffs {
		// a text cut inside one of its runes (go-diff's semantic cleanup shifts some edits
		// by bytes) would no longer count its words: then nothing is marked
		if !utf8.ValidString(d.Text) {
			return nil, nil, -1
		}
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			s := ca.take(n)
			cb.take(n)
			common += s.to - s.from
		case diffmatchpatch.DiffDelete:
			gone = append(gone, ca.take(n))
		case diffmatchpatch.DiffInsert:
			added = append(added, cb.take(n))
		}
	}
	if !ca.done() || !cb.done() {
		return nil, nil, -1
	}
	return gone, added, common
}

// wordCursor is one side's place in its words while go-diff's answer is read: the next
// word and its byte; lost when the answer named more words than there are.
type wordCursor struct {
	words []string
	i, p  int
	lost  bool
}

// take is the span of the next n words, and moves past them.
func (c *wordCursor) take(n int) span {
	s := span{from: c.p, to: c.p}
	if c.i+n > len(c.words) {
		c.lost = true
		return s
	}
	for range n {
		s.to += len(c.words[c.i])
		c.i++
	}
	c.p = s.to
	return s
}

// done reports whether every word was read, and no more.
func (c *wordCursor) done() bool { return !c.lost && c.i == len(c.words) }

// splitWords cuts a line into words: runs of word characters, runs of blanks, and each
// other character alone (so that "f(x)" and "f(y)" differ in "x" and "y" only).
func splitWords(s string) []string {
	var words []string
	for i := 0; i < len(s); {
		j := i + 1
		switch c := s[i]; {
		case isWord(c):
			j = wordEnd(s, i, 0)
		case c == ' ' || c == '\t':
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
		}
		words = append(words, s[i:j])
		i = j
	}
	return words
}

// oneWord says whether s is a single word of splitWords.
func oneWord(s string) bool {
	for i := 1; i < len(s); i++ {
		if !sameWord(s[i-1], s[i]) {
			return false
		}
	}
	return true
}

// encodeWords gives each distinct word of the two lines a rune of its own, so that
// go-diff compares the lines word by word as it would compare characters. The runes are
// from the supplementary planes' private use, valid and clear of the surrogates, which
// would not survive go-diff's conversions to strings.
func encodeWords(a, b []string) (ra, rb []rune) {
	ids := map[string]rune{}
	encode := func(words []string) []rune {
		out := make([]rune, len(words))
		for i, w := range words {
			r, ok := ids[w]
			if !ok {
				r = rune(0xF0000 + len(ids))
				ids[w] = r
			}
			out[i] = r
		}
		return out
	}
	return encode(a), encode(b)
}

// markSpans splits the parts at the spans' ends and marks the pieces inside them.
func markSpans(parts []token, spans []span) []token {
	out := make([]token, 0, len(parts)+2*len(spans))
	pos, k := 0, 0 // the line's byte up to which the parts are cut; the next span
	for _, p := range parts {
		start, end := pos, pos+len(p.Text)
		for pos < end {
			for k < len(spans) && spans[k].to <= pos {
				k++
			}
			cut, changed := end, false
			switch {
			case k == len(spans) || spans[k].from >= end:
			case spans[k].from > pos:
				cut = spans[k].from
			default:
				cut, changed = min(end, spans[k].to), true
			}
			out = append(out, token{Class: p.Class, Text: p.Text[pos-start : cut-start], Changed: changed})
			pos = cut
		}
	}
	return out
}
