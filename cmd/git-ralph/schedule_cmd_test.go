package main

import (
	"strings"
	"testing"
)

func TestParseLoopFlags(t *testing.T) {
	lc, err := parseLoopFlags([]string{"--max", "4", "--mode", "plan", "--skip-if-busy"})
	if err != nil || lc.Max == nil || *lc.Max != 4 || lc.Mode != "plan" {
		t.Fatalf("parseLoopFlags = %+v, %v", lc, err)
	}
	// a negative number after a space is the flag's value, for the loop's own range check
	// ("must be at least 1"), not kong's "(short flag); perhaps try --max=\"-1\""
	if lc, err := parseLoopFlags([]string{"--max", "-1", "--timeout", "-5m"}); err != nil || lc.Max == nil || *lc.Max != -1 {
		t.Errorf("parseLoopFlags(--max -1 --timeout -5m) = %+v, %v; want max -1 for the range check", lc, err)
	}
	for flags, want := range map[string]string{
		"--maxx 3":          "unknown flag --maxx",
		"--max three":       "--max",
		"--help":            "--help and --version are not loop flags",
		"--dry-run":         "--dry-run runs nothing",
		"--verbose --quiet": "contradict",
		"--context a\nb":    "line break",
	} {
		_, err := parseLoopFlags(strings.SplitN(flags, " ", 2))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseLoopFlags(%q) = %v; want an error with %q", flags, err, want)
		}
	}
}
