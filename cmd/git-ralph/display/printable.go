package display

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is how every value that came from a repository (a command, a setting, a
// hook's output, a state file's error) is shown on a terminal or in a log: as it is when
// it prints as itself, else quoted in Go syntax with every control character, escape
// sequence, line break, invisible or bidirectional character and invalid byte spelled
// out. `touch /tmp/PWN #\r\x1b[2K  validate   make test` must not show as `make test`.
func Printable(v string) string {
	if !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }) {
		return strconv.Quote(v)
	}
	return v
}

// PrintableText is Printable for a text of many lines, such as the assembled prompt the
// dry run shows: line breaks and tabs stay as they are, and every other character that
// would not print as itself is spelled out in place (\r, \x1b, \u202e, \xff).
func PrintableText(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, text[i])
		case r == '\n' || r == '\t' || r == ' ' || unicode.IsPrint(r):
			b.WriteString(text[i : i+size])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}
