package agentcli

import (
	"strings"
	"testing"
	"time"
)

// Text that comes in many chunks without a line break (a model that writes one long
// paragraph, or a hostile stream) is held without scanning what is held again for each
// chunk: 40,000 chunks of 250 bytes take milliseconds, not the seconds a scan of the
// whole held text per chunk takes (quadratic: 200 GB read).
func TestStreamWithoutLineBreaksIsLinear(t *testing.T) {
	r := NewRenderer(GeminiStream)
	chunk := strings.Repeat("word ", 50)
	start := cpuTime() // processor time: a busy machine's other processes do not count
	for range 40_000 {
		if out := r.stream(chunk); out != nil {
			t.Fatalf("a line with no break rendered early: %d lines", len(out))
		}
	}
	if took := cpuTime() - start; took > 2*time.Second {
		t.Errorf("40,000 chunks took %s of processor time", took)
	}
	out := r.stream("end\nnext")
	if len(out) != 1 || len(out[0]) != 40_000*len(chunk)+len("end") {
		t.Fatalf("rendered %d lines, first of %d bytes", len(out), len(out[0]))
	}
	if rest := r.End(); len(rest) != 1 || rest[0] != "next" {
		t.Errorf("held back %q, want next", rest)
	}
}
