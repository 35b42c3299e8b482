package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The saved output is redacted on its way to the file, in the part written as it came and
// in the end added from the ring buffer, while the limit still counts the agent's bytes.
func TestOutputLogRedactsBothParts(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Zq7", 31) + "AA"
	out := "start " + key + "\n" + strings.Repeat("filler line\n", 50) + "cut " + key + "\nend " + key + "\n"
	path := filepath.Join(t.TempDir(), "output.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	l := newOutputLog(f, 200)
	for p := out; len(p) > 0; p = p[min(len(p), 7):] {
		l.Write([]byte(p[:min(len(p), 7)]))
	}
	tail := out[len(out)-150:] // begins inside the "cut" line's key
	if err := l.close([]byte(tail), int64(len(out))); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got := string(data)
	if strings.Contains(got, "Zq7Zq7") {
		t.Fatalf("a piece of the key reached the file:\n%s", got)
	}
	for _, want := range []string{"start [REDACTED:anthropic-key]\n", "end [REDACTED:anthropic-key]\n", "bytes of output omitted"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
}
