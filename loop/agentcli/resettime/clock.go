package resettime

import (
	"strings"
	"time"
)

// lateSlack is how long ago a clock time without a date may have passed and still be
// taken as today's (or this week's) rather than tomorrow's (or next week's). The message
// may be read a little after it was written; returning a time just past costs the caller
// one early retry, while a wrong rollover would cost a day, or a week.
const lateSlack = 15 * time.Minute

// clockPattern is a clock time after a cue, with an optional weekday or date before it,
// an optional "on <date>" after it, and an optional zone: "resets 2pm (Asia/Shanghai)",
// "resets Mon 12:00am", "resets Jan 18, 11:30am", "try again at 3:28 PM on Jan 18",
// "try again at 14:05", "reset at 9 p.m. UTC".
var clockPattern = lazyRegexp(`(?i)` + cue +
	`(?:` + weekday + sp + `+(?:at` + sp + `+)?)?` +
	`(?:` + datePattern("") + `,?` + sp + `+(?:at` + sp + `+)?)?` +
	`(?P<h>\d{1,2})(?:(?::(?P<m12>\d{2}))?` + sp + `*(?P<ampm>[ap])\.?m\b\.?|:(?P<m24>\d{2})(?::(?P<s>\d{2}))?)` +
	`(?:,?` + sp + `+on` + sp + `+` + datePattern("On") + `)?` +
	`(?:` + sp + `*\((?P<zone>[a-z][a-z0-9_+\-]*(?:/[a-z0-9_+\-]+){0,2})\)|` + sp + `+(?P<zone2>utc|gmt)\b)?`)

// findClock finds clock times after a cue.
func findClock(msg string, now time.Time) []candidate {
	var out []candidate
	for _, g := range matches(clockPattern(), msg) {
		if c, ok := clockTime(g, now); ok {
			out = append(out, c)
		}
	}
	return out
}

// clockTime resolves one clockPattern match to the instant it next names after now.
func clockTime(g groups, now time.Time) (candidate, bool) {
	h, m, s, ok := hourMinute(g)
	if !ok {
		return candidate{}, false
	}
	loc, zoned := zoneOf(g, now.Location())
	c := candidate{rank: rankClock, pos: g.index[0]}
	switch {
	case g.get("month") != "" || g.get("monthOn") != "":
		c.rank = rankCalendar
		c.at, ok = onDate(g, now.In(loc), h, m, s)
	case g.get("wday") != "":
		c.rank = rankCalendar
		c.at = onWeekday(weekdayOf(g.get("wday")), now.In(loc), h, m, s)
	default:
		c.at = nextClock(now.In(loc), h, m, s)
	}
	if zoned {
		c.rank = rankZoned
	}
	return c, ok
}

// hourMinute reads the clock as 24-hour values: 12am is 0, 12pm is 12.
func hourMinute(g groups) (h, m, s int, ok bool) {
	h = g.int("h", 0)
	if ampm := strings.ToLower(g.get("ampm")); ampm != "" {
		m = g.int("m12", 0)
		if h < 1 || h > 12 || m > 59 {
			return 0, 0, 0, false
		}
		h %= 12
		if ampm == "p" {
			h += 12
		}
		return h, m, 0, true
	}
	m, s = g.int("m24", 0), g.int("s", 0)
	return h, m, s, h <= 23 && m <= 59 && s <= 59
}

// zoneOf is the zone the match names, or local when it names none or one that can't be
// loaded; zoned says which.
func zoneOf(g groups, local *time.Location) (loc *time.Location, zoned bool) {
	name := g.get("zone") + g.get("zone2")
	if name == "" {
		return local, false
	}
	if loc, ok := loadZone(name); ok {
		return loc, true
	}
	return local, false
}

// nextClock is today's h:m:s in now's zone, or tomorrow's when today's has passed.
func nextClock(now time.Time, h, m, s int) time.Time {
	t := time.Date(now.Year(), now.Month(), now.Day(), h, m, s, 0, now.Location())
	if passed(t, now) {
		t = t.AddDate(0, 0, 1)
	}
	return t
}

// onWeekday is the next wd at h:m:s in now's zone: today if that is still to come.
func onWeekday(wd time.Weekday, now time.Time, h, m, s int) time.Time {
	days := (int(wd) - int(now.Weekday()) + 7) % 7
	t := time.Date(now.Year(), now.Month(), now.Day()+days, h, m, s, 0, now.Location())
	if passed(t, now) {
		t = t.AddDate(0, 0, 7)
	}
	return t
}

// onDate is the match's date at h:m:s in now's zone. Without a year it is this year's,
// or next year's when this year's is more than a day past.
func onDate(g groups, now time.Time, h, m, s int) (time.Time, bool) {
	suffix := ""
	if g.get("month") == "" {
		suffix = "On"
	}
	mo, d := monthOf(g.get("month"+suffix)), g.int("day"+suffix, 0)
	y := g.int("year"+suffix, now.Year())
	at := time.Date(y, mo, d, h, m, s, 0, now.Location())
	if g.get("year"+suffix) == "" && at.Before(now.Add(-24*time.Hour)) {
		y++
		at = time.Date(y, mo, d, h, m, s, 0, now.Location())
	}
	return at, dateOK(y, int(mo), d)
}

// passed reports whether t is more than lateSlack before now.
func passed(t, now time.Time) bool {
	return t.Before(now.Add(-lateSlack))
}

// weekdayOf reads "Mon", "monday", "THU" by their first three letters.
func weekdayOf(name string) time.Weekday {
	i := strings.Index("sunmontuewedthufrisat", strings.ToLower(name[:3]))
	return time.Weekday(i / 3)
}

// monthOf reads "Jan", "january", "SEPT" by their first three letters.
func monthOf(name string) time.Month {
	i := strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", strings.ToLower(name[:3]))
	return time.Month(i/3 + 1)
}
