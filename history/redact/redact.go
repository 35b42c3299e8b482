package redact

import (
	"bytes"
	"slices"
)

// Mark is what replaces a secret: "[REDACTED:anthropic-key]". It names the kind of secret
// so that someone reading a log still knows what the agent printed there.
func Mark(kind string) string { return "[REDACTED:" + kind + "]" }

// Bytes returns b with the secrets it contains replaced by their Mark; b itself is
// returned when there are none. It is for texts written whole (a state file, a JSON
// event); a stream written in pieces goes through a Writer, which keeps a key that
// arrives in two pieces whole.
func Bytes(b []byte) []byte {
	var e engine
	out := e.process(b)
	if out == nil {
		return b
	}
	return out
}

// String is Bytes for strings.
func String(s string) string {
	out := Bytes([]byte(s))
	return string(out)
}

// span is one secret found in a text: b[start:end] is replaced by Mark(kind).
type span struct {
	start, end int
	kind       string
}

// Private key blocks span lines, so they are followed across writes: beginKey opens one,
// endKey closes it. maxBlock bounds how long a block without its end is swallowed (an
// 8192-bit RSA key in PEM is under 7 KB), so that a stray BEGIN line cannot hide the rest
// of an output.
var (
	beginKey = lazy(`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)
	endKey   = lazy(`-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)
)

const maxBlock = 64 << 10

// endLineMax bounds the length of an END line endKey can match.
const endLineMax = 160

// engine redacts a text given in pieces of whole lines. Its only state is whether a
// private key block is open and how much of it was swallowed.
type engine struct {
	inBlock   bool
	blockSeen int
}

// process returns the redaction of text, a piece of a stream that ends at a line boundary
// (or at the stream's end), or nil when text holds no secret, so that the common case
// costs no copy.
func (e *engine) process(text []byte) []byte {
	spans := e.blockSpans(text)
	spans = append(spans, lineSpans(text)...)
	spans = append(spans, literalSpans(text)...)
	if len(spans) == 0 {
		return nil
	}
	spans = merge(spans)
	dst := make([]byte, 0, len(text))
	last := 0
	for _, s := range spans {
		dst = append(dst, text[last:s.start]...)
		if s.kind != "" {
			dst = append(dst, Mark(s.kind)...)
		}
		last = s.end
	}
	return append(dst, text[last:]...)
}

// blockSpans finds the private key blocks in text, continuing one left open by an earlier
// piece. The span of a continued block has no kind: its mark was written when it began.
func (e *engine) blockSpans(text []byte) []span {
	var spans []span
	at := 0
	if e.inBlock {
		end := e.closeBlock(text, 0)
		spans = append(spans, span{start: 0, end: end})
		at = end
	}
	for !e.inBlock && at < len(text) && bytes.Contains(text[at:], []byte("-----BEGIN")) {
		loc := beginKey().FindIndex(text[at:])
		if loc == nil {
			break
		}
		start := at + loc[0]
		e.inBlock, e.blockSeen = true, 0
		end := e.closeBlock(text, at+loc[1])
		spans = append(spans, span{start: start, end: end, kind: "private-key"})
		at = end
	}
	return spans
}

// closeBlock returns where the open block ends in text, searching from 'from': after its
// END line when only key body lies before it, else where the key body stops (a block
// without its END line, as in a truncated error message, must not swallow what follows,
// such as the closing quote of the TOML or JSON string holding it), or at the end of text
// when the body goes on (and the block goes on in the next piece of a stream).
func (e *engine) closeBlock(text []byte, from int) int {
	body := from
	for body < len(text) && isKeyBody(text[body]) {
		body++
	}
	// the END line must follow the body directly: look for it there only, since searching
	// the rest of the text from every BEGIN made a text of many BEGIN lines quadratic
	if bytes.HasPrefix(text[body:], []byte("-----END")) {
		if loc := endKey().FindIndex(text[body:min(len(text), body+endLineMax)]); loc != nil && loc[0] == 0 {
			e.inBlock = false
			return body + loc[1]
		}
	}
	e.blockSeen += body - from
	if body < len(text) || e.blockSeen > maxBlock {
		e.inBlock = false
	}
	return body
}

// isKeyBody holds for the bytes of a PEM body: base64 and line breaks, also escaped as
// \n in a JSON or TOML string.
func isKeyBody(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '\n' || c == '\r' || c == '\\'
}

// lineSpans finds the one-line secrets: the keywords of every rule are found in one
// pass, then each anchored rule is matched right after its keywords, and each other rule
// once on each line holding one of its keywords.
func lineSpans(text []byte) []span {
	hits := keywords().find(text)
	if len(hits) == 0 {
		return nil
	}
	// rule by rule, so that of two rules matching the same text the earlier names it (merge)
	slices.SortStableFunc(hits, func(a, b hit) int { return a.rule - b.rule })
	var spans []span
	lines := make([]int, len(rules)) // per rule: where the last line it was matched on ends
	for i := range lines {
		lines[i] = -1
	}
	for _, h := range hits {
		r := &rules[h.rule]
		if r.anchored {
			spans = r.matchAfter(text, h.end, spans)
			continue
		}
		if h.at < lines[h.rule] {
			continue // the line was matched already
		}
		start, end := lineAround(text, h.at)
		spans = r.matchLine(text, start, end, spans)
		lines[h.rule] = end
	}
	return spans
}

// anchorWindow bounds what an anchored rule reads after its keyword.
const anchorWindow = 512

// matchAfter matches an anchored rule right after a keyword that ends at from.
func (r *rule) matchAfter(text []byte, from int, spans []span) []span {
	window := text[from:min(len(text), from+anchorWindow)]
	if nl := bytes.IndexByte(window, '\n'); nl >= 0 {
		window = window[:nl]
	}
	if r.quick != nil && !r.quick(window) {
		return spans
	}
	m := r.re().FindSubmatchIndex(window)
	if m == nil {
		return spans
	}
	s, e := m[2*r.group], m[2*r.group+1]
	if r.check != nil && !r.check(window[s:e]) {
		return spans
	}
	return append(spans, span{start: from + s, end: from + e, kind: r.name})
}

// lineAround is the line of text holding offset i, without its newline.
func lineAround(text []byte, i int) (int, int) {
	start := bytes.LastIndexByte(text[:i], '\n') + 1
	end := bytes.IndexByte(text[i:], '\n')
	if end < 0 {
		return start, len(text)
	}
	return start, i + end
}

// matchLine adds the rule's matches in text[start:end].
func (r *rule) matchLine(text []byte, start, end int, spans []span) []span {
	line := text[start:end]
	for _, m := range r.re().FindAllSubmatchIndex(line, -1) {
		s, e := m[2*r.group], m[2*r.group+1]
		if s < 0 || (r.group == 0 && s > 0 && isTokenByte(line[s-1]) && !afterEscape(line, s) && !afterCSI(line, s)) {
			continue
		}
		if r.check != nil && !r.check(line[s:e]) {
			continue
		}
		spans = append(spans, span{start: start + s, end: start + e, kind: r.name})
	}
	return spans
}

// afterEscape reports whether line[:s] ends with an escaped line break or tab (\n, \r,
// \t): inside a JSON or TOML string (a state file, a record, an event) a key that began a
// line of the agent's output follows one, and the 'n' before it does not make it part of
// a longer word.
func afterEscape(line []byte, s int) bool {
	if s < 2 || line[s-2] != '\\' {
		return false
	}
	c := line[s-1]
	return c == 'n' || c == 'r' || c == 't'
}

// afterCSI reports whether line[:s] ends with a terminal control sequence such as the
// colour code ESC[32m, raw or escaped (\x1b[, \u001b[, \033[): coloured output puts one
// right before a key, and its final letter does not make the key part of a longer word.
func afterCSI(line []byte, s int) bool {
	i := s - 1
	if c := line[i]; c < 0x40 || c > 0x7e {
		return false
	}
	i--
	for i >= 0 && (line[i] >= '0' && line[i] <= '9' || line[i] == ';' || line[i] == '?') {
		i--
	}
	if i < 0 || line[i] != '[' {
		return false
	}
	before := line[:i]
	for _, esc := range []string{"\x1b", `\x1b`, `\u001b`, `\u001B`, `\033`, `\e`} {
		if bytes.HasSuffix(before, []byte(esc)) {
			return true
		}
	}
	return false
}

// merge sorts spans and joins those that overlap, the earlier one naming the result: of
// two with the same place, the one found first (by the earlier rule).
func merge(spans []span) []span {
	slices.SortStableFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.start < last.end {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}
