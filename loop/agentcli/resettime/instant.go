package resettime

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// maxUnix is 9999-12-31T23:59:59Z, the last second Epoch accepts.
const maxUnix = 253402300799

// Epoch converts a structured reset value from JSON (Claude's rate_limit_event resetsAt,
// Codex's resets_at) to a time. The value is in seconds, or in milliseconds when it is
// above 1e12 (as seconds that would be past the year 33000). ok is false for zero,
// negative, NaN or infinite values and for anything after the year 9999. A value in the
// past is returned as is. The result is in UTC.
func Epoch(v float64) (time.Time, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return time.Time{}, false
	}
	if v > 1e12 { // milliseconds
		sec := math.Floor(v / 1e3)
		return fromUnix(sec, (v-sec*1e3)*1e6)
	}
	sec := math.Floor(v)
	return fromUnix(sec, (v-sec)*1e9)
}

// fromUnix is time.Unix for whole seconds and nanoseconds held in floats, refusing
// anything after the year 9999.
func fromUnix(sec, nsec float64) (time.Time, bool) {
	if sec > maxUnix {
		return time.Time{}, false
	}
	return time.Unix(int64(sec), int64(math.Round(nsec))).UTC(), true
}

// pipeEpoch is Claude's 2025 result text, "Claude AI usage limit reached|1767225600".
var pipeEpoch = lazyRegexp(`(?i)limit` + sp + `+reached` + sp + `*\|` + sp + `*(?P<epoch>\d{1,20})`)

// findPipeEpoch finds Claude's "limit reached|<epoch>".
func findPipeEpoch(msg string, _ time.Time) []candidate {
	var out []candidate
	for _, g := range matches(pipeEpoch(), msg) {
		v, err := strconv.ParseFloat(g.get("epoch"), 64)
		if err != nil {
			continue
		}
		if at, ok := Epoch(v); ok {
			out = append(out, candidate{at: at, rank: rankEpoch, pos: g.index[0]})
		}
	}
	return out
}

// isoPattern is a timestamp after a cue: "resets at 2026-11-21T14:00:00Z",
// "2026-11-21 14:00:00+09:00", "regain access on 2026-12-01 at 00:00 UTC".
var isoPattern = lazyRegexp(`(?i)` + cue +
	`(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})(?:t|` + sp + `+(?:at` + sp + `+)?)` +
	`(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,](?P<frac>\d{1,9}))?)?` +
	`(?P<zone>z|[+-]\d{2}:?\d{2}|` + sp + `*\(?(?:utc|gmt)\b\)?)?`)

// findISO finds timestamps after a cue.
func findISO(msg string, now time.Time) []candidate {
	var out []candidate
	for _, g := range matches(isoPattern(), msg) {
		if at, ok := isoTime(g, now.Location()); ok {
			out = append(out, candidate{at: at, rank: rankISO, pos: g.index[0]})
		}
	}
	return out
}

// isoTime builds the instant of one isoPattern match; a timestamp without a zone is in local.
func isoTime(g groups, local *time.Location) (time.Time, bool) {
	y, mo, d := g.int("y", 0), g.int("mo", 0), g.int("d", 0)
	h, mi, s := g.int("h", 0), g.int("mi", 0), g.int("s", 0)
	loc, ok := offsetZone(g.get("zone"), local)
	if !ok || !dateOK(y, mo, d) || h > 23 || mi > 59 || s > 59 {
		return time.Time{}, false
	}
	frac := g.get("frac")
	nsec, _ := strconv.Atoi(frac + strings.Repeat("0", 9-len(frac)))
	return time.Date(y, time.Month(mo), d, h, mi, s, nsec, loc), true
}

// offsetZone reads a timestamp's zone: "Z", "UTC", "GMT", "+09:00", "-0500", or none.
func offsetZone(z string, local *time.Location) (*time.Location, bool) {
	z = strings.ToLower(strings.TrimFunc(z, func(r rune) bool {
		return unicode.IsSpace(r) || r == '(' || r == ')'
	}))
	switch z {
	case "":
		return local, true
	case "z", "utc", "gmt":
		return time.UTC, true
	}
	digits := strings.ReplaceAll(z[1:], ":", "")
	hh, errH := strconv.Atoi(digits[:2])
	mm, errM := strconv.Atoi(digits[2:])
	if errH != nil || errM != nil || hh > 14 || mm > 59 {
		return nil, false
	}
	offset := (hh*60 + mm) * 60
	if z[0] == '-' {
		offset = -offset
	}
	return time.FixedZone(z, offset), true
}

// dateOK reports whether year y has a month mo with a day d.
func dateOK(y, mo, d int) bool {
	t := time.Date(y, time.Month(mo), d, 12, 0, 0, 0, time.UTC)
	return t.Year() == y && int(t.Month()) == mo && t.Day() == d
}
