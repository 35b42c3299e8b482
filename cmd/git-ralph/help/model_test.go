package help

import (
	"slices"
	"testing"
)

// TestFirstSentence: help beside a candidate ends at the first full stop, not at "e.g.".
func TestFirstSentence(t *testing.T) {
	tests := map[string]string{
		"Stop after N iterations (default: 5).":                 "Stop after N iterations (default: 5)",
		"One. Two.":                                             "One",
		"Stop after DUR, e.g. 30m (default: none).":             "Stop after DUR, e.g. 30m (default: none)",
		"Run a command (e.g. 'make test') after it. Then more.": "Run a command (e.g. 'make test') after it",
		"Spread\n  over   lines. Second.":                       "Spread over lines",
		"":                                                      "",
	}
	for in, want := range tests {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLiteralWords: an argument named like "N|initial" offers its lower-case words.
func TestLiteralWords(t *testing.T) {
	tests := map[string][]string{"N|initial": {"initial"}, "N": nil, "plan|build|NAME": {"plan", "build"}}
	for in, want := range tests {
		if got := literalWords(in); !slices.Equal(got, want) {
			t.Errorf("literalWords(%q) = %q, want %q", in, got, want)
		}
	}
}
