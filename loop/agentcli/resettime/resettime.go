package resettime

import "time"

// rank orders the forms a message can state its reset in, least specific first. When a
// message states several, the most specific one wins: an epoch or a full timestamp names
// one instant; a clock time with a zone leaves nothing to guess; a weekday or a date pins
// the day but may lean on the local zone; a bare clock time leans on both the local zone
// and the day rollover; a duration is relative to when the message was read, not written.
type rank int

const (
	rankNone     rank = iota
	rankDuration      // "try again in 2 hours", "reset after 1h2m3s", "retry-after: 120"
	rankClock         // "resets 12pm", "try again at 3:28 PM"
	rankCalendar      // "resets Mon 12:00am", "resets Jan 18, 11:30am"
	rankZoned         // "resets 2pm (Asia/Shanghai)", with or without a weekday or date
	rankISO           // "resets at 2026-11-21T14:00:00Z"
	rankEpoch         // "Claude AI usage limit reached|1767225600"
)

// candidate is one reset time found in a message.
type candidate struct {
	at   time.Time
	rank rank
	pos  int // byte offset of the match, to prefer the earlier of two equally specific forms
}

// better reports whether c should win over the best candidate so far.
func (c candidate) better(best candidate) bool {
	return c.rank > best.rank || c.rank == best.rank && c.pos < best.pos
}

// finders each return every reset time of their forms that msg states.
var finders = []func(msg string, now time.Time) []candidate{
	findPipeEpoch,
	findISO,
	findClock,
	findDuration,
}

// Parse finds the time at which a limit stated in msg resets. now is the current time
// (its Location is the user's local zone, used when the message names no zone); pass the
// time the message was written when it is known, because durations and clock times are
// read relative to it. ok is false when msg states no reset time.
//
// It reads, case-insensitively and anywhere in msg:
//   - Claude's "usage limit reached|<epoch>", in seconds or milliseconds;
//   - an RFC 3339-like timestamp after a cue ("resets at 2026-11-21T14:00:00Z", also
//     "regain access on 2026-12-01 at 00:00 UTC"); without a zone it is local;
//   - a clock time after a cue ("resets", "reset at", "try again at", "until"), 12-hour
//     ("2pm", "11:30 a.m.") or 24-hour ("14:05"), optionally with a weekday ("Mon"), a date
//     ("Jan 18, 11:30am", "3:28 PM on Jan 18") and an IANA zone in parentheses
//     ("(Asia/Tokyo)") or a bare UTC/GMT;
//   - a duration after "try again in", "resets in", "reset after", "retry after" or
//     "retry-after:" ("2 days 17 hours 14 minutes", "1h2m3s", "17 seconds", "120").
//
// When msg states several, the most specific form wins (epoch, then timestamp, then a
// clock time with a zone, then one with a weekday or date, then a bare clock time, then
// a duration), and the earliest in msg among equals. The CLI's own retry notices
// ("Retrying after 6173ms", "retrying in 5s") are not reset times and are ignored.
//
// A zone name that can't be loaded is ignored, and now's zone used. A clock time without
// a date means its next occurrence: tomorrow when today's has passed, next week for a
// weekday; but one that passed less than 15 minutes ago (lateSlack) is returned as just
// passed rather than a day or a week away. A date without a year means this year's
// unless that is more than a day past. A time in the past (an old epoch or timestamp, a
// date or clock time just gone) is returned as is, with ok true: whether to wait, retry
// at once or give up is the caller's choice. The result is in now's Location.
func Parse(msg string, now time.Time) (at time.Time, ok bool) {
	var best candidate
	for _, find := range finders {
		for _, c := range find(msg, now) {
			if c.better(best) {
				best = c
			}
		}
	}
	if best.rank == rankNone {
		return time.Time{}, false
	}
	return best.at.In(now.Location()), true
}
