package doctor

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
)

// Print prints a line a check, its mark, name and what it found, and each line of
// its hint below it; then the summary. unicode: the marks ✓ ✗ !, else ok, FAIL, warn.
func Print(w io.Writer, results []Result, unicode bool) error {
	width := 0
	for _, r := range results {
		width = max(width, len(r.Name))
	}
	var b strings.Builder
	failed, warned := 0, 0
	for _, r := range results {
		switch r.Status {
		case Fail:
			failed++
		case Warn:
			warned++
		}
		m := mark(r.Status, unicode)
		fmt.Fprintf(&b, "%s %-*s  %s\n", m, width, r.Name, display.Printable(r.Detail))
		if r.Hint != "" {
			indent := strings.Repeat(" ", utf8.RuneCountInString(m)+1+width+2) // under the detail
			for _, line := range strings.Split(display.PrintableText(r.Hint), "\n") {
				fmt.Fprintf(&b, "%shint: %s\n", indent, line)
			}
		}
	}
	b.WriteString(summary(failed, warned) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// mark is the mark of a check's status: a symbol where the terminal shows UTF-8, a word
// elsewhere.
func mark(st Status, unicode bool) string {
	marks := map[Status][2]string{OK: {"ok  ", "✓"}, Warn: {"warn", "!"}, Fail: {"FAIL", "✗"}}
	if unicode {
		return marks[st][1]
	}
	return marks[st][0]
}

// summary is the last line: how many checks failed and warned, and what it means.
func summary(failed, warned int) string {
	warnings := ""
	if warned > 0 {
		warnings = fmt.Sprintf(" (%d warning%s)", warned, map[bool]string{true: "", false: "s"}[warned == 1])
	}
	if failed > 0 {
		return fmt.Sprintf("%d check%s failed%s: an unattended run would fail", failed, map[bool]string{true: "", false: "s"}[failed == 1], warnings)
	}
	return "ready for an unattended run" + warnings
}

// UTF8Locale reports whether the locale's character set is UTF-8 (LC_ALL, else
// LC_CTYPE, else LANG, as setlocale reads them): the marks ✓ ✗ ! need it, and cron
// runs with no locale at all, so cron.log gets the words.
func UTF8Locale(getenv func(string) string) bool {
	for _, key := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(key); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return false
}

// PrintFailures prints the failed checks as warnings, with their hints: for schedule add,
// which adds its entry all the same, since the problem may be fixed before it runs.
func PrintFailures(w io.Writer, results []Result) {
	for _, r := range results {
		if r.Status != Fail {
			continue
		}
		fmt.Fprintf(w, "warning: %s: %s\n", r.Name, display.Printable(r.Detail))
		if r.Hint != "" {
			for _, line := range strings.Split(display.PrintableText(r.Hint), "\n") {
				fmt.Fprintf(w, "hint: %s\n", line)
			}
		}
	}
}
