package resettime

import (
	"strings"
	"time"
	"unicode"

	// The zone database, embedded (about 450 KB) so that "(Asia/Tokyo)" resolves on
	// hosts without one: Windows, scratch and distroless containers, minimal images.
	_ "time/tzdata"
)

// loadZone loads an IANA zone named in a message. Names are matched as written, then
// with each word capitalised ("asia/tokyo" → "Asia/Tokyo"), then in upper case ("utc").
// ok is false for names the database does not know, and for "Local", which would mean
// this process's zone rather than one the message names.
func loadZone(name string) (loc *time.Location, ok bool) {
	if strings.EqualFold(name, "local") {
		return nil, false
	}
	for _, n := range []string{name, capitalise(name), strings.ToUpper(name)} {
		if loc, err := time.LoadLocation(n); err == nil {
			return loc, true
		}
	}
	return nil, false
}

// capitalise upper-cases the first letter of each word of a zone name and lower-cases
// the rest, words being separated by '/', '_' and '-'.
func capitalise(name string) string {
	start := true
	return strings.Map(func(r rune) rune {
		word := start
		start = r == '/' || r == '_' || r == '-'
		if word {
			return unicode.ToUpper(r)
		}
		return unicode.ToLower(r)
	}, name)
}
