package resettime

import (
	"regexp"
	"strconv"
	"sync"
)

// Fragments shared by the patterns. Every pattern is case-insensitive.
const (
	// sp is one space; \p{Zs} adds the no-break and narrow no-break spaces that
	// locale-aware formatters put before "PM".
	sp = `[\s\p{Zs}]`

	// cue introduces a point in time: "resets", "reset at", "try again at", "until",
	// "regain access on", "available again at". A time must follow it directly, so that
	// "5-hour limit" or a time quoted elsewhere in the message does not count.
	cue = `\b(?:resets?|try` + sp + `+again|retry|until|regain` + sp + `+access|available(?:` + sp + `+again)?)` +
		`(?:` + sp + `+(?:at|on|after|by))?` + sp + `*:?` + sp + `*`

	// weekday is "Mon", "Monday", "Thurs.,"; the code reads its first three letters.
	weekday = `(?P<wday>mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:rs?|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)\.?,?`

	// monthName is "Jan", "January", "Sept."; the code reads its first three letters.
	monthName = `jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`
)

// datePattern matches "Jan 18", "January 18th, 2027", naming its groups month+suffix,
// day+suffix and year+suffix so that one pattern can hold two of them.
func datePattern(suffix string) string {
	return `(?P<month` + suffix + `>` + monthName + `)\.?` + sp + `+` +
		`(?P<day` + suffix + `>\d{1,2})(?:st|nd|rd|th)?` +
		`(?:,?` + sp + `+(?P<year` + suffix + `>\d{4}))?`
}

// groups gives a match's submatches by group name; absent groups are "".
type groups struct {
	re    *regexp.Regexp
	s     string
	index []int
}

// get returns the text of the named group.
func (g groups) get(name string) string {
	i := g.re.SubexpIndex(name)
	if i < 0 || g.index[2*i] < 0 {
		return ""
	}
	return g.s[g.index[2*i]:g.index[2*i+1]]
}

// int returns the named group as a number, or def when the group is absent.
func (g groups) int(name string, def int) int {
	n, err := strconv.Atoi(g.get(name))
	if err != nil {
		return def
	}
	return n
}

// lazyRegexp compiles expr when first asked for it: compiled as the program starts, the
// patterns would cost every git-ralph command a millisecond, and most never read a reset
// time.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// matches runs re over s and returns each match with its groups.
func matches(re *regexp.Regexp, s string) []groups {
	var out []groups
	for _, index := range re.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, groups{re: re, s: s, index: index})
	}
	return out
}
