package agentcheck

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable shows a program named by a repository's config as it is when it prints as
// itself, else quoted in Go syntax with every character that would drive a terminal
// spelled out (the command's printable, of which this is a copy: a sub-package never
// imports main).
func printable(v string) string {
	if !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }) {
		return strconv.Quote(v)
	}
	return v
}
