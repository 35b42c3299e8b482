package fielderr

import "strings"

// Suggest returns the name of valid closest to name, or "" when none is close enough to
// be what was meant: at most 2 edits away, or a third of the valid name's length. Case
// and '-' against '_' do not count ("Max-Iteration" is one edit from "max_iterations");
// of names equally close, the first in valid wins.
func Suggest(name string, valid []string) string {
	norm := alike(name)
	best, bestDist := "", -1
	for _, v := range valid {
		d := editDistance(norm, alike(v))
		if (d <= 2 || d <= len(v)/3) && (bestDist < 0 || d < bestDist) {
			best, bestDist = v, d
		}
	}
	return best
}

// alike is name in the form names are compared in: lower case, '_' for '-'.
func alike(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "-", "_"))
}

// maxCompared bounds the names editDistance compares: no key or stage name is that long,
// and a hostile file's name must not cost quadratic time.
const maxCompared = 256

// editDistance is the Levenshtein distance between a and b, in bytes; for a name longer
// than maxCompared, the longer length, which is too far to suggest anything.
func editDistance(a, b string) int {
	if len(a) > maxCompared || len(b) > maxCompared {
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
