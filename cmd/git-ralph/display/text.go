package display

import "strings"

// ShellQuote quotes s as one word for sh, whatever it holds.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Indent puts prefix before every line of text.
func Indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n"+prefix) + "\n"
}

// ShortHash is the first 7 characters of a commit hash; "" stays "".
func ShortHash(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}

// OrDash is s, or "-" where s is empty: a table's cell with nothing to say.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
