package launch

import (
	"strings"
	"testing"
)

func TestErrorLinesKeepTheLastErrorAndItsHints(t *testing.T) {
	var e errorLines
	for _, chunk := range []string{"git-ralph: starting\nerror: the first\nhint: its", " hint\nprogress\n", "error: the second\r\n",
		"hint: a\nhint: b\n", "done\n", "hint: not after a line between\n", "error: unfinished line without a newline"} {
		if n, err := e.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if got, want := e.String(), "error: the second\nhint: a\nhint: b"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	var long errorLines
	long.Write([]byte("error: " + strings.Repeat("x", 100000) + "\n"))
	if got := long.String(); len(got) > errorLineMax+10 || !strings.HasSuffix(got, "…") {
		t.Errorf("a long error line is kept as %d bytes", len(got))
	}
}
