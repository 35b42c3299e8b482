package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestADiffsEscapesAreSpelledOut: a saved diff holds what the agent wrote, escape
// sequences included; the view shows them spelled out, never sends them to the terminal.
func TestADiffsEscapesAreSpelledOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "diff.patch")
	diff := "diff --git a/x b/x\n+hidden\x1b[2K\x1b]0;title\a shown\n"
	if err := os.WriteFile(path, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := readDiff(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	if strings.ContainsAny(text, "\x1b\a") || !strings.Contains(text, `\x1b[2K`) {
		t.Errorf("the diff as the view shows it: %q, want its escapes spelled out", text)
	}
}
