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

// testOutput is n lines of a verbose test run, as a validation command prints them, with a
// failure at the end; seed changes the timings.
func testOutput(n int, seed int) string {
	var b strings.Builder
	for i := range n - 3 {
		fmt.Fprintf(&b, "--- PASS: TestCase/%s_%x (0.%02ds)\n", names[i%len(names)], i*7919, (i+seed)%100)
	}
	b.WriteString("--- FAIL: TestParse (0.01s)\n    parse_test.go:12: got 3, want 4\nFAIL\n")
	return b.String()
}

var names = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo"}

// Two long texts alike in scattered places are the worst case of Myers' diff. The bound
// holds, and the answer says it was hit: the bounded comparison takes less than half the
// processor time of the same comparison left to finish (its baseline, measured in the
// same run; the time on the clock would count what other processes of a busy machine do).
func TestSimilarityOfHugeInputsIsBounded(t *testing.T) {
	a := testOutput(10000, 0)
	var half strings.Builder
	for i, line := range strings.SplitAfter(a, "\n") {
		if i%2 == 0 {
			line = "changed " + line
		}
		half.WriteString(line)
	}
	started := cpuTime()
	got := Similarity(a, half.String(), 15*time.Millisecond)
	bounded := cpuTime() - started
	if !got.Coarse || got.Percent > 50 {
		t.Errorf("Similarity of half-changed 10,000 lines = %+v, want coarse and at most the true 50 %%", got)
	}
	started = cpuTime()
	exact := Similarity(a, half.String(), time.Hour)
	unbounded := cpuTime() - started
	t.Logf("bounded: %s, left to finish: %s (%+v)", bounded, unbounded, exact) // the figures, for whoever reads -v
	if exact.Coarse || bounded > unbounded/2 {
		t.Errorf("the comparison bounded to 15ms took %s of processor time, left to finish %s (%+v)", bounded, unbounded, exact)
	}
	if again := Similarity(a, testOutput(10000, 1), 15*time.Millisecond); again.Percent != 100 {
		t.Errorf("two runs of the same suite differing in timings: %+v, want 100 %%", again)
	}
}

func TestWordSimilarity(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"the same words, wrapped differently", "I fixed the parser.\nTests pass.", "I fixed the parser. Tests pass.", 100},
		{"one word of twenty changed", strings.Repeat("word ", 19) + "done", strings.Repeat("word ", 19) + "over", 95},
		{"numbers count in prose", "agent says 1", "agent says 2", 66},
		{"nothing in common", "Lowered the limit.", "Raised it again!", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WordSimilarity(tt.a, tt.b, time.Second); got.Percent != tt.want || got.Coarse {
				t.Errorf("WordSimilarity = %+v, want %d %%", got, tt.want)
			}
		})
	}
}
