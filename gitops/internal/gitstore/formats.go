package gitstore

import (
	"strings"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// IsHash reports whether s is a full object name, SHA-1 or SHA-256.
func IsHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// SplitNul splits git's NUL-separated output (-z) into its names, empty ones left out.
func SplitNul(out string) []string {
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}

// IdentRule splits what `git var GIT_AUTHOR_IDENT` prints: "Name <email> 1767225600 +0100".
var IdentRule = lazyregexp.New(`^(.*) <([^<>]*)> \d+ [+-]\d{4}$`)
