package redact

import (
	"strings"
	"testing"
	"time"
)

// TestManyBeginLinesIsLinear: every BEGIN line without its END used to search the rest of
// the text for an END line, so a text of BEGIN lines took time in the square of its size
// (10 MB of them: 2.5 minutes in Bytes, the path of state files, records and events).
// Sixteen times the text must take about sixteen times as long, not 256. What is compared
// is the processor time the test itself used (the least of five runs of each size), not
// the time on the clock: other processes of a busy machine do not add to it, where they
// had made a linear pass look 81-91 times as long.
func TestManyBeginLinesIsLinear(t *testing.T) {
	small, large := beginLines(64<<10), beginLines(1<<20)
	ratio := float64(fastest(func() { Bytes(large) })) / float64(fastest(func() { Bytes(small) }))
	t.Logf("16 times the text: %.1f times the processor time", ratio) // the figure, for whoever reads -v
	if ratio > 64 {
		t.Fatalf("16 times the BEGIN lines took %.0f times the processor time to redact: quadratic (256), not linear (16)", ratio)
	}
}

func beginLines(size int) []byte {
	return []byte(strings.Repeat("-----BEGIN RSA PRIVATE KEY-----\n", size/32))
}

// fastest is the least processor time of five runs of f.
func fastest(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := cpuTime()
		f()
		best = min(best, cpuTime()-start)
	}
	return best
}

func BenchmarkManyBeginLines(b *testing.B) {
	text := beginLines(2 << 20)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Bytes(text)
	}
}
