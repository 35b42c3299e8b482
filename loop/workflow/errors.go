package workflow

import (
	"strconv"
	"strings"
)

// Error is a problem in a workflow file: where it is, which field, what is wrong and how
// to fix it. Error() reads like ".ralph/workflows/ship.toml:7: stages.code.depends_on:
// unknown stage \"plna\"", as the config's errors do.
type Error struct {
	File     string // display path: ".ralph/workflows/NAME.toml"
	Line     int    // 1-based; 0 when unknown
	Field    string // dotted key: "stages.plan.gate"
	Msg      string
	HintText string
	err      error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Hint says how to fix the problem.
func (e *Error) Hint() string { return e.HintText }

// Unwrap is the underlying cause (a read error).
func (e *Error) Unwrap() error { return e.err }

// suggest returns the name of valid closest to name, or "" when none is close.
func suggest(name string, valid []string) string {
	norm := strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	best, bestDist := "", -1
	for _, v := range valid {
		d := editDistance(norm, strings.ToLower(strings.ReplaceAll(v, "-", "_")))
		if (d <= 2 || d <= len(v)/3) && (bestDist < 0 || d < bestDist) {
			best, bestDist = v, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
