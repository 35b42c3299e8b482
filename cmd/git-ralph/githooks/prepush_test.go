package githooks

import (
	"strings"
	"testing"
)

func TestReadUpdates(t *testing.T) {
	got, err := ReadUpdates(strings.NewReader("\n" + refLines + "(delete) 0000000000000000000000000000000000000000 refs/heads/gone 4444444444444444444444444444444444444444\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].LocalRef != "refs/heads/main" || got[1].RemoteSHA != strings.Repeat("0", 40) {
		t.Fatalf("ReadUpdates = %+v", got)
	}
	if got[0].deletes() || got[1].deletes() || !got[2].deletes() {
		t.Errorf("deletes() = %v %v %v, want false false true", got[0].deletes(), got[1].deletes(), got[2].deletes())
	}
	_, err = ReadUpdates(strings.NewReader(refLines + "refs/heads/x abc\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3 of stdin") {
		t.Errorf("a short line: err = %v, want one naming line 3", err)
	}
}

func TestLastLines(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb\n\n\n", 5, "a\nb"},
		{"only", 3, "only"},
		{"", 3, ""},
	} {
		if got := lastLines(tt.in, tt.n); got != tt.want {
			t.Errorf("lastLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
