package redact

import (
	"bytes"
	"strings"
	"testing"
)

// A key known by its value (a local server's, of no vendor's shape) is replaced in every
// text and stream once it is added; a short one is not, or it would eat common words.
func TestLiteralSecret(t *testing.T) {
	const key = "local-token-7f3a9c"
	text := "the server said: unknown token " + key + "; and again " + key + "\n"
	if got := String(text); !strings.Contains(got, key) {
		t.Fatalf("redacted before it was added: %q", got)
	}
	Literal(key)
	Literal("short")
	if got := String(text); strings.Contains(got, key) || strings.Count(got, Mark("api-key")) != 2 {
		t.Errorf("String = %q, want the key marked twice", got)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Write([]byte(text[:20]))
	w.Write([]byte(text[20:]))
	w.Flush()
	if strings.Contains(buf.String(), key) {
		t.Errorf("Writer let the key through: %q", buf.String())
	}
	if got := String("a short word"); got != "a short word" {
		t.Errorf("a short literal was added: %q", got)
	}
}
