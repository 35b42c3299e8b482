package idle

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestSimilarity(t *testing.T) {
	lines := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s line %c%c\n", prefix, 'a'+i%26, 'a'+i/26%26)
		}
		return b.String()
	}
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"identical", "--- FAIL: TestParse\nexpected 3, got 4\nFAIL\n", "--- FAIL: TestParse\nexpected 3, got 4\nFAIL\n", 100},
		{"disjoint", "alpha\nbeta\n", "gamma\ndelta\n", 0},
		{"one line of ten changed", lines("x", 10), strings.Replace(lines("x", 10), "x line ca", "x line zz", 1), 90},
		{"one line added to nine", lines("x", 9), lines("x", 9) + "more\n", 94},
		{"timings and counts do not count", "ok  \tpkg\t0.013s\nFAIL TestA (0.02s)\n12 tests, 1 failure\n", "ok  \tpkg\t1.250s\nFAIL TestA (0.31s)\n14 tests, 1 failure\n", 100},
		{"blank lines and trailing spaces do not count", "a\n\n\nb  \n", "a\nb\n", 100},
		{"last line without newline matches", "a\nb", "a\nb\n", 100},
		{"one empty", "", "a\nb\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Similarity(tt.a, tt.b, time.Second)
			if got.Percent != tt.want || got.Coarse {
				t.Errorf("Similarity = %+v, want %d %%, not coarse", got, tt.want)
			}
			if back := Similarity(tt.b, tt.a, time.Second); back != got {
				t.Errorf("not symmetric: %+v one way, %+v the other", got, back)
			}
		})
	}
}
