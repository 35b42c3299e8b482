package redact

import (
	"bytes"
	"io"
)

// maxLine is how much of a line without a newline a Writer holds back before it passes
// the line on in part; holdBack is how much of such a line's end it keeps for the next
// write, so that a key arriving in pieces is still seen whole (keys are far shorter).
const (
	maxLine  = 64 << 10
	holdBack = 1 << 10
)

// Writer redacts a stream on its way to w. It passes on whole lines only, holding back a
// line until its newline arrives (or until it grows past maxLine), so that a key split
// across two writes is still found and replaced; a private key block is followed across
// lines. Flush passes on what is held back, at the end of the stream.
type Writer struct {
	w        io.Writer
	pending  []byte
	engine   engine
	skipLine bool // after a Gap: drop bytes up to the next newline
}

// NewWriter returns a Writer that passes the redacted stream to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write takes p whole (it reports len(p) unless w fails) and passes on its complete lines.
func (r *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if r.skipLine {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return n, nil
		}
		p, r.skipLine = p[i+1:], false
	}
	r.pending = append(r.pending, p...)
	cut := bytes.LastIndexByte(r.pending, '\n') + 1
	if cut == 0 && len(r.pending) > maxLine {
		cut = splitPoint(r.pending)
	}
	if cut == 0 {
		return n, nil
	}
	err := r.emit(r.pending[:cut])
	r.pending = append(r.pending[:0], r.pending[cut:]...)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Gap tells the Writer that bytes of the stream were lost before the next write (a reader
// too slow to take them all): the line held back and the next write's bytes up to its
// first newline are dropped, since the pieces of a key on either side of the gap would
// no longer be recognised.
func (r *Writer) Gap() {
	r.pending = r.pending[:0]
	r.skipLine = true
}

// Flush passes on the part of a line still held back.
func (r *Writer) Flush() error {
	if len(r.pending) == 0 {
		return nil
	}
	err := r.emit(r.pending)
	r.pending = r.pending[:0]
	return err
}

func (r *Writer) emit(text []byte) error {
	if out := r.engine.process(text); out != nil {
		text = out
	}
	_, err := r.w.Write(text)
	return err
}

// splitPoint is where a long line without a newline is cut: before the last holdBack
// bytes, moved back to a byte that cannot be part of a key so that none is cut in two.
func splitPoint(line []byte) int {
	cut := len(line) - holdBack
	for i := cut; i > cut-holdBack && i > 0; i-- {
		if !isKeyByte(line[i-1]) && !isKeyByte(line[i]) {
			return i
		}
	}
	return cut
}

// isKeyByte holds for the bytes a key or an assigned secret can hold.
func isKeyByte(c byte) bool {
	return isTokenByte(c) || c == '+' || c == '/' || c == '=' || c == '.' || c == '~'
}

// IsKeyByte reports whether r can be part of a key, for callers that cut a text and must
// not leave a piece of a key at the cut.
func IsKeyByte(r rune) bool { return r < 0x80 && isKeyByte(byte(r)) }

// Each redacts every write to W as a whole text: for writers that are given one complete
// message per Write (progress lines, JSON events), where holding back a line would delay
// it for nothing.
type Each struct{ W io.Writer }

// Write passes p on redacted, reporting len(p) when it was passed on whole.
func (e Each) Write(p []byte) (int, error) {
	q := Bytes(p)
	n, err := e.W.Write(q)
	if n == len(q) {
		return len(p), err
	}
	return min(n, len(p)), err
}
