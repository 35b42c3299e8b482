package fielderr

import (
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	keys := []string{"task", "prompt", "depends_on", "gate", "worktree", "on_complete", "on_failure"}
	tests := []struct {
		name, in, want string
		valid          []string
	}{
		{"one letter off", "promt", "prompt", keys},
		{"two letters off", "dpends_no", "depends_on", keys},
		{"case and dash do not count", "Depends-On", "depends_on", keys},
		{"the valid name is given as written", "plan", "Plan", []string{"Plan", "build"}},
		{"the nearest of several", "gait", "gate", []string{"wait_for", "gate", "date_of"}},
		{"equally near: the first", "cat", "bat", []string{"bat", "hat"}},
		{"a third of a long name", "on_compleet_x", "on_complete", keys},
		{"too far", "xyz", "", keys},
		{"nothing like any", "colour", "", keys},
		{"nothing to choose from", "task", "", nil},
		{"a hostile length", strings.Repeat("a", 1000), "", []string{strings.Repeat("a", 999)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Suggest(tt.in, tt.valid); got != tt.want {
				t.Errorf("Suggest(%.20q, %.40q) = %q, want %q", tt.in, tt.valid, got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"gate", "gate", 0}, {"", "gate", 4}, {"gate", "", 4},
		{"kitten", "sitting", 3}, {"plan", "plna", 2}, {"prompt", "promt", 1},
		{strings.Repeat("a", 300), "a", 300}, // past the bound: the longer length, not computed
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%.20q, %.20q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
