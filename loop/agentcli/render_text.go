package agentcli

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/units"
)

// Plain makes one line of an agent's output safe to show on a terminal or in a log: tabs
// and printable characters stay, every other character (a control character, an escape
// sequence's ESC, \r, a line break, an invisible or bidirectional mark) and every
// invalid byte is spelled out in Go syntax (\x1b, \r, \u202e, \xff). An agent's output
// comes from a repository anyone may have written: `\x1b]0;…\a` must not retitle the
// terminal, `\r` must not hide what came before it on the line.
func Plain(s string) string {
	clean := utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return r != '\t' && r != ' ' && !unicode.IsPrint(r)
	})
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' || r == ' ' || unicode.IsPrint(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// oneLine is the first non-blank line of s, cut to max runes; "…" marks what was left
// out (more text, or more lines).
func oneLine(s string, max int) string {
	s = strings.TrimLeft(s, " \t\r\n")
	line, rest, more := strings.Cut(s, "\n")
	line = strings.TrimRight(line, " \t\r")
	cut := false
	if utf8.RuneCountInString(line) > max {
		runes := []rune(line)
		line, cut = string(runes[:max]), true
	}
	if cut || more && strings.TrimSpace(rest) != "" {
		line += " …"
	}
	return line
}

// sizeOf says how much a tool's output was, never what: "no output", "1 line, 12 B",
// "340 lines, 12.0 KiB".
func sizeOf(output string) string {
	if strings.TrimSpace(output) == "" {
		return "no output"
	}
	lines := strings.Count(strings.TrimRight(output, "\n"), "\n") + 1
	noun := "lines"
	if lines == 1 {
		noun = "line"
	}
	return fmt.Sprintf("%d %s, %s", lines, noun, units.Size(int64(len(output))))
}

// usageRendered is the tokens and cost a run reported, for the end of its rendering:
// "= tokens: 2,100 in, 81 out, 6,300 cache read, 525 cache write · $0.0190 · opus", or,
// where the input holds the cache reads, "= tokens: 2,100 in (525 of them cached), 81
// out". nil when the run reported nothing.
func usageRendered(u Usage) []string {
	var parts []string
	if u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens > 0 {
		t := fmt.Sprintf("tokens: %s in, %s out", units.Count(u.InputTokens), units.Count(u.OutputTokens))
		if u.CachedInInput && u.CacheReadTokens > 0 {
			t = fmt.Sprintf("tokens: %s in (%s of them cached), %s out", units.Count(u.InputTokens), units.Count(u.CacheReadTokens), units.Count(u.OutputTokens))
		} else if u.CacheReadTokens > 0 {
			t += ", " + units.Count(u.CacheReadTokens) + " cache read"
		}
		if u.CacheWriteTokens > 0 {
			t += ", " + units.Count(u.CacheWriteTokens) + " cache write"
		}
		parts = append(parts, t)
	}
	if u.HasCost {
		parts = append(parts, fmt.Sprintf("$%.4f", u.CostUSD))
	}
	if len(parts) == 0 {
		return nil
	}
	if u.Model != "" {
		parts = append(parts, Plain(oneLine(u.Model, 60)))
	}
	return []string{"= " + strings.Join(parts, " · ")}
}
