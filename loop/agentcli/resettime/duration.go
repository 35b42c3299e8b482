package resettime

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// durationCue introduces a wait: "try again in", "resets in", "reset after", "retry
// after", "available again in", or the header "retry-after:" whose bare number is in
// seconds. The CLI's own backoff notices ("Retrying after 6173ms", "retrying in 5s") do
// not match: they say when the CLI retries, not when the limit resets.
var durationCue = lazyRegexp(`(?i)\b(?:(?:try` + sp + `+again|retry|resets?|available(?:` + sp + `+again)?)` +
	sp + `+(?:in|after)|(?P<header>retry-after` + sp + `*:?))` + sp + `*`)

// units maps the unit words of a duration to their length.
var units = map[string]time.Duration{
	"ms": time.Millisecond, "msec": time.Millisecond, "msecs": time.Millisecond,
	"millisecond": time.Millisecond, "milliseconds": time.Millisecond,
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
}

// maxSeconds bounds a duration so that it fits time.Duration.
const maxSeconds = float64(math.MaxInt64 / int64(time.Second))

// findDuration finds waits after a cue and adds them to now.
func findDuration(msg string, now time.Time) []candidate {
	var out []candidate
	for _, g := range matches(durationCue(), msg) {
		d, ok := scanDuration(msg[g.index[1]:], g.get("header") != "")
		if ok {
			out = append(out, candidate{at: now.Add(d), rank: rankDuration, pos: g.index[0]})
		}
	}
	return out
}

// scanDuration reads a duration from the start of s: "2 days 17 hours 14 minutes",
// "1 hour and 5 min", "1h2m3s", "3.32s". It stops at the first word that is not a
// number or a unit. A number without a unit counts as seconds only when bareSeconds
// is set and it comes first ("retry-after: 120"). ok is false when s starts
// with no duration, or one too long for time.Duration (about 292 years).
func scanDuration(s string, bareSeconds bool) (d time.Duration, ok bool) {
	var total float64 // seconds
	terms := 0
	for {
		rest := skipJoiners(s, terms > 0)
		n, unit, after := durationTerm(rest)
		if unit == "" && bareSeconds && terms == 0 {
			unit = "s"
		}
		size, known := units[unit]
		if n < 0 || !known {
			break
		}
		total += n * size.Seconds()
		terms++
		s = after
	}
	if terms == 0 || total >= maxSeconds {
		return 0, false
	}
	return time.Duration(total * 1e9), true
}

// durationTerm splits "17 hours..." into 17, "hours" and the rest. n is -1 when s does
// not start with a number; unit is the lower-cased letters after it, maybe "".
func durationTerm(s string) (n float64, unit, rest string) {
	i := 0
	for i < len(s) && (isDigit(s[i]) || s[i] == '.' && i > 0 && i+1 < len(s) && isDigit(s[i+1])) {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if i == 0 || err != nil {
		return -1, "", s
	}
	s = strings.TrimLeftFunc(s[i:], unicode.IsSpace)
	j := 0
	for j < len(s) && isLetter(s[j]) {
		j++
	}
	return n, strings.ToLower(s[:j]), s[j:]
}

// skipJoiners skips the spaces before a term and, between terms, a comma and an "and".
func skipJoiners(s string, between bool) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if !between {
		return s
	}
	s = strings.TrimLeftFunc(strings.TrimPrefix(s, ","), unicode.IsSpace)
	if len(s) > 4 && strings.EqualFold(s[:4], "and ") {
		s = strings.TrimLeftFunc(s[4:], unicode.IsSpace)
	}
	return s
}

func isDigit(b byte) bool  { return '0' <= b && b <= '9' }
func isLetter(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }
