package display

import (
	"strings"
	"time"
)

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

// LocalTime is t in the local zone as "2006-01-02 15:04:05", or "unknown time".
func LocalTime(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return t.Local().Format(time.DateTime)
}

// ShortTask is a loop's task in one line of at most 60 characters, for status and the
// settings' listing.
func ShortTask(task string) string {
	line := strings.Join(strings.Fields(task), " ")
	if r := []rune(line); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return line
}

// OneLine is s on one line, its runs of white space one space, terminal-safe.
func OneLine(s string) string { return Printable(strings.Join(strings.Fields(s), " ")) }

// IndentOutput puts two spaces before each line of a command's output, spelled out for
// the terminal; no output is "(no output)".
func IndentOutput(text string) string {
	if text == "" {
		return "  (no output)"
	}
	return "  " + strings.ReplaceAll(PrintableText(text), "\n", "\n  ")
}
