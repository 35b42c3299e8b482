package ledger

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// Format is entry e as the text of a note: a first line naming the format and its
// version, then one `key: value` line per field that has a value.
func Format(e Entry) string {
	var b strings.Builder
	b.WriteString(headerPrefix + strconv.Itoa(Version) + "\n")
	for _, f := range fields {
		if v := f.get(&e); v != "" {
			b.WriteString(f.key + ": " + v + "\n")
		}
	}
	return b.String()
}

// Unreadable is a part of a note that is no entry this git-ralph can read: written by a
// newer version, damaged, or not git-ralph's at all.
type Unreadable struct {
	Reason string `json:"reason"`
}

// keyRule is what a key looks like; a key the reader does not know is skipped.
var keyRule = lazyregexp.New(`^[a-z][a-z0-9_]{0,39}$`)

// Parse reads the entries of a note: blocks separated by blank lines, each an entry
// (several iterations can note one commit, and a merge of two notes puts them one after
// the other). A block repeated word for word is read once: merging notes that both sides
// had repeats them. Whatever does not parse is returned as unreadable, never guessed at.
func Parse(note string) ([]Entry, []Unreadable) {
	if len(note) > MaxNote {
		return nil, []Unreadable{{fmt.Sprintf("the note is %d bytes, more than the %d a ledger note may have", len(note), MaxNote)}}
	}
	if !utf8.ValidString(note) {
		return nil, []Unreadable{{"the note is not valid UTF-8"}}
	}
	var entries []Entry
	var bad []Unreadable
	seen := map[string]bool{}
	for _, b := range blocks(note) {
		if seen[b.text] {
			continue
		}
		seen[b.text] = true
		if len(entries)+len(bad) == maxEntries {
			bad = append(bad, Unreadable{fmt.Sprintf("more than %d entries in one note; the rest is not read", maxEntries)})
			break
		}
		e, err := parseEntry(b)
		if err != nil {
			bad = append(bad, Unreadable{err.Error()})
			continue
		}
		entries = append(entries, e)
	}
	return entries, bad
}

// block is one entry's lines, and the line of the note it starts on (1-based).
type block struct {
	text  string
	first int
}

// blocks splits a note at its blank lines.
func blocks(note string) []block {
	var out []block
	var cur []string
	for n, line := range strings.Split(note, "\n") {
		if line != "" {
			cur = append(cur, line)
			continue
		}
		if len(cur) > 0 {
			out = append(out, block{strings.Join(cur, "\n"), n + 1 - len(cur)})
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, block{strings.Join(cur, "\n"), strings.Count(note, "\n") + 2 - len(cur)})
	}
	return out
}

// parseEntry reads one block: the header, then `key: value` lines. Errors name the line
// of the note.
func parseEntry(b block) (Entry, error) {
	lines := strings.Split(b.text, "\n")
	if err := checkHeader(lines[0]); err != nil {
		return Entry{}, fmt.Errorf("line %d: %w", b.first, err)
	}
	var e Entry
	set := map[string]bool{}
	for n, line := range lines[1:] {
		at := b.first + 1 + n
		key, value, err := splitLine(line)
		if err != nil {
			return Entry{}, fmt.Errorf("line %d: %w", at, err)
		}
		if set[key] {
			return Entry{}, fmt.Errorf("line %d: %s is given twice", at, key)
		}
		set[key] = true
		if f, ok := fieldNamed(key); ok {
			if err := f.set(&e, value); err != nil {
				return Entry{}, fmt.Errorf("line %d: %s: %w", at, key, err)
			}
		}
	}
	for _, f := range fields {
		if f.required && !set[f.key] {
			return Entry{}, fmt.Errorf("line %d: the entry has no %s", b.first, f.key)
		}
	}
	return e, nil
}

// checkHeader accepts "git-ralph ledger vN" for N up to Version.
func checkHeader(line string) error {
	v, ok := strings.CutPrefix(line, headerPrefix)
	if !ok {
		return fmt.Errorf("not a git-ralph ledger entry (it starts %s)", quoteStart(line))
	}
	n, err := number(v, 1, maxCount)
	if err != nil {
		return fmt.Errorf("not a git-ralph ledger entry (it starts %s)", quoteStart(line))
	}
	if n > Version {
		return fmt.Errorf("ledger format v%d is newer than this git-ralph reads (v%d): upgrade git-ralph", n, Version)
	}
	return nil
}

// splitLine splits "key: value", with checks on both.
func splitLine(line string) (string, string, error) {
	key, value, ok := strings.Cut(line, ": ")
	switch {
	case !ok || !keyRule.MatchString(key):
		return "", "", fmt.Errorf("not a `key: value` line: %s", quoteStart(line))
	case value == "" || strings.TrimSpace(value) != value:
		return "", "", fmt.Errorf("%s: the value is empty or has spaces around it", key)
	case len(value) > maxValue:
		return "", "", fmt.Errorf("%s: the value is longer than %d bytes", key, maxValue)
	case strings.ContainsFunc(value, func(r rune) bool { return !printable(r) }):
		return "", "", fmt.Errorf("%s: the value holds a character that does not print", key)
	}
	return key, value, nil
}

func fieldNamed(key string) (field, bool) {
	for _, f := range fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// quoteStart quotes the start of a line for an error message, spelling out whatever
// would not print.
func quoteStart(line string) string {
	if len(line) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		return strconv.Quote(line[:cut]) + "…"
	}
	return strconv.Quote(line)
}
