package redact

import (
	"bytes"
	"sync"
)

// keywordIndex finds every rule's keywords in one pass over a text. Searched one keyword
// at a time, the hundred-odd keywords of the rules cost a hundred passes over each piece
// of output (most of the redaction's time); here each position costs a look at a table of
// the two bytes that begin a keyword, and only positions that begin one compare keywords.
type keywordIndex struct {
	group  [1 << 16]uint8 // the two bytes at a position -> 1 + index in groups; 0: no keyword begins so
	groups [][]keywordRef
}

// keywordRef is one keyword of one rule.
type keywordRef struct {
	rule int
	kw   []byte
}

// keywords is the index of the rules' keywords, built when first needed.
var keywords = sync.OnceValue(func() *keywordIndex { return newKeywordIndex(rules) })

func newKeywordIndex(rs []rule) *keywordIndex {
	ix := &keywordIndex{}
	for i := range rs {
		for _, kw := range rs[i].keywords {
			if len(kw) < 2 {
				panic("redact: a keyword needs two bytes: " + kw)
			}
			p := pair(kw[0], kw[1])
			if ix.group[p] == 0 {
				if len(ix.groups) == 255 {
					panic("redact: more than 255 keyword beginnings")
				}
				ix.groups = append(ix.groups, nil)
				ix.group[p] = uint8(len(ix.groups))
			}
			g := ix.group[p] - 1
			ix.groups[g] = append(ix.groups[g], keywordRef{rule: i, kw: []byte(kw)})
		}
	}
	return ix
}

func pair(a, b byte) uint16 { return uint16(a)<<8 | uint16(b) }

// hit is a keyword of rule found at offset at, ending at end.
type hit struct{ rule, at, end int }

// find returns the keywords in text, in the order of their offsets.
func (ix *keywordIndex) find(text []byte) []hit {
	var hits []hit
	for i := 0; i+1 < len(text); i++ {
		g := ix.group[pair(text[i], text[i+1])]
		if g == 0 {
			continue
		}
		for _, ref := range ix.groups[g-1] {
			if bytes.HasPrefix(text[i:], ref.kw) {
				hits = append(hits, hit{rule: ref.rule, at: i, end: i + len(ref.kw)})
			}
		}
	}
	return hits
}
