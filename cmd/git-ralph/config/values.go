package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// describe names the TOML type of a decoded value for messages: `a string "5"`.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("a string %q", x)
	case int64:
		return fmt.Sprintf("an integer (%d)", x)
	case bool:
		return fmt.Sprintf("a boolean (%t)", x)
	case tomlFloat:
		return "a float"
	case []any:
		return "an array"
	case tomlTable:
		return "a table"
	case tomlArrayTable:
		return "an array of tables"
	case tomlDate:
		return "a date or time"
	}
	return "a value of another type"
}

const durationHint = `use a Go duration with a unit: "500ms", "30s", "10m", "1h30m" (units: ms, s, m, h)`

// parseDuration reads a Go duration, with hints for the usual mistakes.
func parseDuration(raw string) (time.Duration, *problem) {
	t := strings.TrimSpace(raw)
	d, err := time.ParseDuration(t)
	if err == nil {
		return d, nil
	}
	hint := durationHint
	if n, err := strconv.Atoi(strings.TrimSuffix(t, "d")); err == nil && strings.HasSuffix(t, "d") && n > 0 && n < 1e6 {
		hint = fmt.Sprintf(`days are not a unit: write "%dh"`, n*24)
	} else if _, err := strconv.Atoi(t); err == nil {
		hint = fmt.Sprintf(`add a unit: "%ss" for seconds, "%sm" for minutes`, t, t)
	}
	return 0, newProblem(hint, "want a duration, got %q", raw)
}

// maxSize bounds max_output_buffer: the buffer may be allocated whole.
const maxSize = 1 << 30

const sizeHint = `write a number of bytes or a size with a unit: "512KiB", "10MB", "1GiB" (KB = KiB, MB = MiB, GB = GiB)`

var sizeUnits = []struct {
	suffix string
	scale  int64
}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}}

// parseSize splits "10MB" into 10 and 1<<20 (binary multiples, case-insensitive).
func parseSize(raw string) (n, scale int64, ok bool) {
	t := strings.TrimSpace(raw)
	scale = 1
	for _, u := range sizeUnits {
		if len(t) >= len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, scale = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.scale
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	return n, scale, err == nil
}
