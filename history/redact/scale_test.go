package redact

import (
	"strings"
	"testing"
	"time"
)

// TestManyBeginLinesIsLinear: every BEGIN line without its END used to search the rest of
// the text for an END line, so a text of BEGIN lines took time in the square of its size
// (10 MB of them: 2.5 minutes in Bytes, the path of state files, records and events).
// 2 MB of them took 6 s; a linear pass takes well under a second.
func TestManyBeginLinesIsLinear(t *testing.T) {
	text := []byte(strings.Repeat("-----BEGIN RSA PRIVATE KEY-----\n", 2<<20/32))
	start := time.Now()
	Bytes(text)
	if d := time.Since(start); d > 3*time.Second*raceSlowdown {
		t.Fatalf("redacting 2 MB of BEGIN lines took %v", d)
	}
}
