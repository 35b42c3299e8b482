package pathglob

import (
	"errors"
	"path"
	"slices"
	"strings"
)

// A pattern is a path relative to the repository's root, written with '/': each segment
// is a path.Match pattern ('*', '?', '[a-z]', '\' escapes; none crosses a '/'), and a
// segment "**" matches any number of segments, none included. "tests/acceptance/**"
// matches everything under tests/acceptance; "**/*.golden" matches a .golden file at any
// depth; "go.sum" matches the root's go.sum only. path.Match per segment rather than a
// glob library: its syntax is Go's own and documented, and the one addition, "**", is a
// few lines.

// Check says what is wrong with pattern, or nil when Match can use it.
func Check(pattern string) error {
	switch {
	case strings.TrimSpace(pattern) == "":
		return errors.New("an empty pattern")
	case strings.HasPrefix(pattern, "/"):
		return errors.New("a pattern starts at the repository's root without a leading '/'")
	case strings.HasSuffix(pattern, "/"):
		return errors.New("a pattern names files: end a directory's with /** for everything under it")
	}
	for _, seg := range strings.Split(pattern, "/") {
		switch {
		case seg == "" || seg == "." || seg == "..":
			return errors.New("a pattern has no empty, '.' or '..' segment")
		case seg != "**" && strings.Contains(seg, "**"):
			return errors.New("'**' must be a whole segment between slashes, as in a/**/b")
		}
		if _, err := path.Match(seg, ""); err != nil {
			return errors.New("a malformed segment " + seg + " (an unclosed '[' or a trailing '\\')")
		}
	}
	return nil
}

// Match reports whether the slash-separated path p matches pattern. A pattern Check
// refuses matches nothing.
func Match(pattern, p string) bool {
	if Check(pattern) != nil {
		return false
	}
	return matchSegments(strings.Split(pattern, "/"), strings.Split(p, "/"))
}

// matchSegments matches path segments against pattern segments, "**" taking any number.
func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegments(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// Touched are the paths of paths that match any of patterns, sorted and once each.
func Touched(patterns, paths []string) []string {
	var hit []string
	for _, p := range paths {
		if slices.ContainsFunc(patterns, func(pat string) bool { return Match(pat, p) }) {
			hit = append(hit, p)
		}
	}
	slices.Sort(hit)
	return slices.Compact(hit)
}
