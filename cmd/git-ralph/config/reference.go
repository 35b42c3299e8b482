package config

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WriteReference writes the reference page of the configuration keys
// (docs/reference/config.md) in Markdown, from the key table itself, so that the page
// cannot list a key the code lacks or miss one it has. describe returns the text that
// explains a key (the comment above it in the config file init writes), or ""; flag
// returns the flag of `git ralph loop` that sets a top-level key, or "".
func WriteReference(w io.Writer, describe, flag func(key string) string) error {
	var b strings.Builder
	b.WriteString(referenceIntro)
	b.WriteString("\n## Top-level keys\n\n")
	b.WriteString("Set in `.ralph/config.toml` or your user file `~/.config/git-ralph/config.toml`; " +
		"those marked *any mode* may also be set in a `[modes.NAME]` table, for that mode only.\n\n")
	writeKeyTable(&b, topSpecs, describe, flag)
	b.WriteString("\n## `[agents.NAME]`: changing a preset\n\n")
	b.WriteString("NAME is a preset (`claude`, `codex`, …). Files only.\n\n")
	writeKeyTable(&b, agentSpecs, func(key string) string { return describe("agents." + key) }, nil)
	b.WriteString("\n## `[hooks]`: commands run on events\n\n")
	b.WriteString("Each hook gets the event's JSON object on stdin (see [Events](events.md#event-hooks)). Files only.\n\n")
	writeKeyTable(&b, hookSpecs, func(key string) string { return describe("hooks." + key) }, nil)
	b.WriteString("\n## `[prices.MODEL]`: an API agent's prices\n\n")
	b.WriteString("What the model MODEL of an API agent costs, in US dollars per million tokens, over the built-in " +
		"table's price; a key left out (its default, none) is 0, so `[prices.\"qwen2.5-coder\"]` with no keys makes a local model free. " +
		"Your own file only: a repository's `[prices]` is an error, since prices decide what your budgets count.\n\n")
	writeKeyTable(&b, priceSpecs, func(string) string { return "" }, nil)
	_, err := io.WriteString(w, b.String())
	return err
}

const referenceIntro = `# Configuration keys

<!-- Generated from cmd/git-ralph/config/keys.go by the test TestConfigReferenceIsCurrent;
do not edit: run UPDATE_DOCS=1 go test ./cmd/git-ralph -run TestConfigReferenceIsCurrent -->

Every key git-ralph reads from its config files, generated from the table the code checks
them with. Where a value comes from, highest first: flags > environment ` + "`RALPH_<KEY>`" + ` >
the repository's ` + "`.ralph/config.toml`" + ` (its ` + "`[modes.NAME]`" + ` table for the running mode, then
its top level) > your user file > the default below. ` + "`git ralph config`" + ` prints every value
with where it came from; the [configuration guide](../guide/configuration.md) explains the
keys with examples.

- **env**, **flag**: the environment variable, which takes the value as the flag does (a
  list comma-separated), and the flag of ` + "`git ralph loop`" + `; *files only* keys have neither.
- **bounded**: a repository's file may tighten your value but never loosen it (a cloned
  repository's files are not trusted to raise your limits).
- **trust**: a command git-ralph runs (or a place it sends to); set in a repository's file,
  it runs only after you approved it with ` + "`git ralph trust`" + `.
`

// writeKeyTable writes one table of keys: name, type, default, and for the top-level keys
// (flag set) their environment variable and flag; then the notes and the description.
func writeKeyTable(b *strings.Builder, specs []spec, describe, flag func(string) string) {
	top := flag != nil
	if top {
		b.WriteString("| key | type | default | env | flag | | description |\n|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| key | type | default | | description |\n|---|---|---|---|---|\n")
	}
	for _, s := range specs {
		fmt.Fprintf(b, "| `%s` | %s | %s |", s.key, typeName(s.typ), defaultText(s))
		if top {
			env := "*files only*"
			if !s.fileOnly {
				env = "`" + envName(s.key) + "`"
			}
			f := "—"
			if name := flag(s.key); name != "" {
				f = "`" + name + "`"
			}
			fmt.Fprintf(b, " %s | %s |", env, f)
		}
		fmt.Fprintf(b, " %s | %s |\n", strings.Join(marks(s, top), ", "), cell(describe(s.key)))
	}
}

// marks are the short notes on a key: where it may be set, bounded, trust.
func marks(s spec, top bool) []string {
	var m []string
	if top && !s.topOnly {
		m = append(m, "any mode")
	}
	if top && s.topOnly {
		m = append(m, "top level only")
	}
	if slices.Contains(Bounded, s.key) {
		m = append(m, "bounded")
	}
	if s.command || s.commandIf != nil {
		m = append(m, "trust")
	}
	return m
}

func typeName(t valueType) string {
	return map[valueType]string{typeString: "string", typeInt: "integer", typeBool: "boolean",
		typeDuration: "duration (`\"30m\"`)", typeSize: "size (`\"10MiB\"`)", typeStrings: "array of strings",
		typeMoney: "US dollars", typeList: "array of strings"}[t]
}

// defaultText is the built-in default as a TOML value, or "none".
func defaultText(s spec) string {
	switch v := s.def.(type) {
	case nil:
		return "none"
	case string:
		if v == "" {
			return "none"
		}
		return "`" + strconv.Quote(v) + "`"
	case int:
		return "`" + strconv.Itoa(v) + "`"
	case bool:
		return "`" + strconv.FormatBool(v) + "`"
	case time.Duration:
		if v == 0 {
			return "none"
		}
		return "`\"" + shortDuration(v) + "\"`"
	case int64:
		return "`\"" + sizeText(v) + "\"`"
	case float64:
		if v == 0 {
			return "none"
		}
		return "`" + strconv.FormatFloat(v, 'f', 2, 64) + "`"
	case []string:
		if len(v) == 0 {
			return "none"
		}
	}
	return fmt.Sprintf("`%v`", s.def)
}

// shortDuration writes 1h0m0s as 1h and 10m0s as 10m.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// sizeText writes a byte count with the largest binary unit that divides it.
func sizeText(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// cell keeps a text on one line of a Markdown table.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}
