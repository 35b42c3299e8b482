package idle

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

// step is one iteration as a stagnation test tells it: the working tree's content after
// it (the one before is the previous step's), how it ended, and its texts.
type step struct {
	tree     string
	ending   Ending
	message  string
	failure  string
	want     string // "" no finding, "alike", "nudge", "stop"
	oscillat bool   // want Oscillation
}

func run(t *testing.T, threshold int, steps []step) {
	t.Helper()
	s := Stagnation{Threshold: threshold, Similarity: DefaultStagnationSimilarity}
	before := "t0"
	for n, st := range steps {
		r := s.Observe(Iteration{Before: gitops.Checkpoint{Tree: before}, After: gitops.Checkpoint{Tree: st.tree},
			Ending: st.ending, Message: st.message, Failure: st.failure})
		got := ""
		switch {
		case r.Stop:
			got = "stop"
		case r.Nudge:
			got = "nudge"
		case r.Alike:
			got = "alike"
		}
		if got != st.want || r.Oscillation != st.oscillat {
			t.Fatalf("iteration %d: got %q (oscillation %v), want %q (oscillation %v); %+v", n+1, got, r.Oscillation, st.want, st.oscillat, r)
		}
		before = st.tree
	}
}

// todo is a validation failure listing the n items of a plan that are left.
func todo(n int) string {
	var b strings.Builder
	b.WriteString("items left:\n")
	for i := range n {
		fmt.Fprintf(&b, "- implement the %s command\n", strings.Repeat("x", i+1))
	}
	return b.String()
}

const failed = "--- FAIL: TestParse (0.01s)\n    parse_test.go:12: got 3, want 4\nFAIL\nFAIL\texample.com/p\t0.013s\n"

func TestStagnation(t *testing.T) {
	tests := []struct {
		name      string
		threshold int
		steps     []step
	}{
		{"the same validation failure three times: nudge, then stop", 3, []step{
			{tree: "a", message: "Fixed the parser.", failure: failed},
			{tree: "b", message: "Fixed the parser.", failure: failed, want: "alike"},
			{tree: "c", message: "Fixed the parser.", failure: failed, want: "nudge"},
			{tree: "d", message: "Fixed the parser.", failure: failed, want: "stop"},
		}},
		{"timings differ, the failure is the same", 2, []step{
			{tree: "a", message: "Fixed it.", failure: failed},
			{tree: "b", message: "Fixed it.", failure: "--- FAIL: TestParse (0.52s)\n    parse_test.go:12: got 3, want 4\nFAIL\nFAIL\texample.com/p\t1.502s\n", want: "nudge"},
		}},
		{"a different failure resets the streak and the nudge", 3, []step{
			{tree: "a", message: "Fixed it.", failure: failed},
			{tree: "b", message: "Fixed it.", failure: failed, want: "alike"},
			{tree: "c", message: "Fixed it.", failure: failed, want: "nudge"},
			{tree: "d", message: "Fixed it.", failure: "undefined: parse\nFAIL\texample.com/p [build failed]\n"},
			{tree: "e", message: "Fixed it.", failure: "undefined: parse\nFAIL\texample.com/p [build failed]\n", want: "alike"},
			{tree: "f", message: "Fixed it.", failure: "undefined: parse\nFAIL\texample.com/p [build failed]\n", want: "nudge"},
		}},
		{"progress with passing validation is never alike, whatever the messages", 2, []step{
			{tree: "a", message: "Done."}, {tree: "b", message: "Done."}, {tree: "c", message: "Done."}, {tree: "d", message: "Done."},
		}},
		{"the same message with no change and no validation", 2, []step{
			{tree: "t0", message: "Nothing left to do."},
			{tree: "t0", message: "Nothing left to do.", want: "nudge"},
			{tree: "t0", message: "Nothing left to do.", want: "stop"},
		}},
		{"messages are compared word by word: one word of twenty changed is alike", 2, []step{
			{tree: "a", message: "I fixed the off-by-one in parse: the loop now stops at len(s) - 1, and the test should pass now.", failure: failed},
			{tree: "b", message: "I fixed the off-by-one in parse: the loop now stops at len(s) - 1, so the test should pass now.", failure: failed, want: "nudge"},
		}},
		{"a message rewritten is not alike", 2, []step{
			{tree: "a", message: "I fixed the off-by-one in parse.", failure: failed},
			{tree: "b", message: "Rewrote parse to use a scanner.", failure: failed},
		}},
		{"two empty messages with no change prove nothing", 2, []step{
			{tree: "t0"}, {tree: "t0"}, {tree: "t0"},
		}},
		{"empty messages, the same failure: the failure is the evidence", 2, []step{
			{tree: "a", failure: failed}, {tree: "b", failure: failed, want: "nudge"},
		}},
		{"a message on one side only differs", 2, []step{
			{tree: "t0", failure: failed}, {tree: "t0", message: "Tried again.", failure: failed},
		}},
		{"validation passed after failing differs", 2, []step{
			{tree: "a", message: "Fixed it.", failure: failed}, {tree: "b", message: "Fixed it."},
		}},
		{"a failure that changes as the work goes on is progress", 2, []step{
			{tree: "a", message: "Done.", failure: todo(20)},
			{tree: "b", message: "Done.", failure: todo(19)},
			{tree: "c", message: "Done.", failure: todo(18)},
		}},
		{"the same shrinking failure with the files unchanged is alike", 2, []step{
			{tree: "t0", message: "Done.", failure: todo(20)},
			{tree: "t0", message: "Done.", failure: todo(19), want: "nudge"},
		}},
		{"different messages with the same failure are different attempts", 2, []step{
			{tree: "a", message: "Changed the tokenizer to skip comments.", failure: failed},
			{tree: "b", message: "Rewrote parseExpr to handle precedence.", failure: failed},
		}},
		{"oscillation A→B→A nudges, and going on stops", 3, []step{
			{tree: "A", message: "Set the limit to 10."},
			{tree: "B", message: "Set the limit to 20."},
			{tree: "A", message: "Set the limit to 10.", want: "nudge", oscillat: true},
			{tree: "B", message: "Set the limit to 20.", want: "stop", oscillat: true},
		}},
		{"oscillation back to the tree before the first iteration", 3, []step{
			{tree: "A", message: "Added a note."},
			{tree: "t0", message: "Removed the note.", want: "nudge", oscillat: true},
		}},
		{"oscillation that does not go on resets", 3, []step{
			{tree: "A", message: "one"}, {tree: "B", message: "two"},
			{tree: "A", message: "three", want: "nudge", oscillat: true},
			{tree: "C", message: "four"},
			{tree: "D", message: "five"},
			{tree: "C", message: "six", want: "nudge", oscillat: true},
		}},
		{"an unchanged tree is no oscillation", 3, []step{
			{tree: "A", message: "one"}, {tree: "A", message: "two"}, {tree: "A", message: "three"},
		}},
		{"a failed iteration ends the streak", 2, []step{
			{tree: "a", message: "Fixed it.", failure: failed},
			{tree: "b", ending: Failed, message: "Fixed it.", failure: failed},
			{tree: "c", message: "Fixed it.", failure: failed},
			{tree: "d", message: "Fixed it.", failure: failed, want: "nudge"},
		}},
		{"an uncounted iteration is not seen", 2, []step{
			{tree: "a", message: "Fixed it.", failure: failed},
			{tree: "a", ending: Uncounted},
			{tree: "b", message: "Fixed it.", failure: failed, want: "nudge"},
		}},
		{"threshold 0 is off", 0, []step{
			{tree: "t0", message: "same", failure: failed}, {tree: "t0", message: "same", failure: failed}, {tree: "t0", message: "same", failure: failed},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.threshold, tt.steps) })
	}
}

func TestRepetitionFigures(t *testing.T) {
	s := Stagnation{Threshold: 3, Similarity: 90}
	first := s.Observe(Iteration{Before: gitops.Checkpoint{Tree: "t0"}, After: gitops.Checkpoint{Tree: "a"}, Message: "Fixed it.", Failure: failed})
	if first.Measured || first.Message != Unmeasured || first.Failure != Unmeasured || first.Repeats != 1 {
		t.Errorf("first iteration: %+v, want nothing measured and 1 repeat", first)
	}
	r := s.Observe(Iteration{Before: gitops.Checkpoint{Tree: "a"}, After: gitops.Checkpoint{Tree: "b"}, Message: "Fixed it.\nRan the tests.", Failure: failed})
	want := Repetition{Measured: true, Message: 57, Failure: 100, Repeats: 1} // 2 words of 2 and 5 in common
	if r != want {
		t.Errorf("second iteration: %+v, want %+v", r, want)
	}
}

func TestRepeatedWords(t *testing.T) {
	tests := []struct {
		r     Repetition
		words string
		cause string
	}{
		{Repetition{Alike: true, Failure: 100, Message: 95, Repeats: 3}, "the validation failed the same way, the agent's final message was the same, 3 iterations in a row", "repeated_attempt"},
		{Repetition{Alike: true, Failure: Unmeasured, Message: 100, Unchanged: true, Repeats: 2}, "the agent's final message was the same, the files did not change, 2 iterations in a row", "repeated_attempt"},
		{Repetition{Oscillation: true, Failure: Unmeasured, Message: 0, Repeats: 2}, "the files went back to what they were two iterations ago", "oscillation"},
	}
	for _, tt := range tests {
		if got := tt.r.Repeated(); got != tt.words {
			t.Errorf("Repeated() = %q, want %q", got, tt.words)
		}
		if got := tt.r.Cause(); got != tt.cause {
			t.Errorf("Cause() = %q, want %q", got, tt.cause)
		}
	}
}
