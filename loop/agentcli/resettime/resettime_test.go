package resettime

import (
	"math"
	"testing"
	"time"
)

func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// date is a wall-clock time in loc, for wanted results.
func date(loc *time.Location, y int, mo time.Month, d, h, mi int) time.Time {
	return time.Date(y, mo, d, h, mi, 0, 0, loc)
}

func TestParse(t *testing.T) {
	ny, utc := zone(t, "America/New_York"), time.UTC
	tokyo, shanghai, colombo, mexico := zone(t, "Asia/Tokyo"), zone(t, "Asia/Shanghai"), zone(t, "Asia/Colombo"), zone(t, "America/Mexico_City")
	nyNow := date(ny, 2026, time.November, 21, 13, 5)   // a Saturday; 18:05 UTC
	utcNow := date(utc, 2026, time.November, 21, 13, 5) // 22:05 in Tokyo
	tests := []struct {
		name string
		msg  string
		now  time.Time
		want time.Time
	}{
		// Claude's pipe epoch.
		{"epoch seconds", "Claude AI usage limit reached|1795363200", nyNow, time.Unix(1795363200, 0)},
		{"epoch milliseconds", "Claude AI usage limit reached|1795363200250", nyNow, time.Unix(1795363200, 250e6)},
		{"epoch in JSON", `{"type":"result","subtype":"success","is_error":false,"result":"Claude AI usage limit reached|1795363200"}`, nyNow, time.Unix(1795363200, 0)},
		{"epoch in the past is returned", "Claude AI usage limit reached|1767225600", nyNow, date(utc, 2026, time.January, 1, 0, 0)},
		{"epoch upper case", "CLAUDE AI USAGE LIMIT REACHED|1795363200", nyNow, time.Unix(1795363200, 0)},

		// Timestamps.
		{"ISO Z", "resets at 2026-11-21T14:00:00Z", nyNow, date(utc, 2026, time.November, 21, 14, 0)},
		{"ISO offset", "Resets at 2026-11-21T14:00:00+09:00.", nyNow, date(tokyo, 2026, time.November, 21, 14, 0)},
		{"ISO offset without colon, fraction", "limit resets at 2026-11-21 14:00:00.5-0500", utcNow, date(ny, 2026, time.November, 21, 14, 0).Add(500 * time.Millisecond)},
		{"ISO without zone is local", "resets at 2026-11-21T14:00", nyNow, date(ny, 2026, time.November, 21, 14, 0)},
		{"ISO in the past is returned", "resets at 2020-01-01T00:00:00Z", nyNow, date(utc, 2020, time.January, 1, 0, 0)},
		{"Anthropic spend cap", "You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.", nyNow, date(utc, 2026, time.December, 1, 0, 0)},
		{"a log timestamp is no reset", "2026-11-21T13:00:00Z ERROR: try again in 2 hours", nyNow, nyNow.Add(2 * time.Hour)},

		// Clock times with a zone.
		{"zone ahead, later today there", "You've hit your limit · resets 2pm (Asia/Shanghai)", nyNow, date(shanghai, 2026, time.November, 22, 14, 0)},
		{"zone behind, later today there", "You've hit your session limit · resets 4:20pm (America/Mexico_City)", nyNow, date(mexico, 2026, time.November, 21, 16, 20)},
		{"zone, past there so tomorrow", "You're out of extra usage · resets 11:30am (Asia/Colombo)", utcNow, date(colombo, 2026, time.November, 22, 11, 30)},
		{"zone from UTC: 2pm Tokyo is 05:00 UTC next day", "resets 2pm (Asia/Tokyo)", utcNow, date(utc, 2026, time.November, 22, 5, 0)},
		{"Claude 'will reset at'", "Claude usage limit reached. Your limit will reset at 7pm (Asia/Tokyo).", utcNow, date(tokyo, 2026, time.November, 22, 19, 0)},
		{"zone in upper case", "YOU'VE HIT YOUR LIMIT · RESETS 2PM (ASIA/TOKYO)", utcNow, date(tokyo, 2026, time.November, 22, 14, 0)},
		{"zone in lower case", "resets 2pm (asia/tokyo)", utcNow, date(tokyo, 2026, time.November, 22, 14, 0)},
		{"zone with three parts", "resets 9am (America/Argentina/Buenos_Aires)", utcNow, date(zone(t, "America/Argentina/Buenos_Aires"), 2026, time.November, 22, 9, 0)},
		{"unknown zone falls back to local", "resets 2pm (Mars/Olympus_Mons)", nyNow, date(ny, 2026, time.November, 21, 14, 0)},
		{"'(local)' is now's zone, not the process's", "resets 2pm (local)", nyNow, date(ny, 2026, time.November, 21, 14, 0)},
		{"bare UTC", "resets 9 p.m. UTC", nyNow, date(utc, 2026, time.November, 21, 21, 0)},

		// Clock times without a zone.
		{"12pm already past: tomorrow", "5-hour limit reached ∙ resets 12pm", nyNow, date(ny, 2026, time.November, 22, 12, 0)},
		{"12pm still to come", "5-hour limit reached ∙ resets 12pm", date(ny, 2026, time.November, 21, 9, 0), date(ny, 2026, time.November, 21, 12, 0)},
		{"12am is midnight", "resets 12am", nyNow, date(ny, 2026, time.November, 22, 0, 0)},
		{"12:00am", "resets 12:00am", nyNow, date(ny, 2026, time.November, 22, 0, 0)},
		{"12:30pm", "resets 12:30pm", date(ny, 2026, time.November, 21, 11, 0), date(ny, 2026, time.November, 21, 12, 30)},
		{"2am tomorrow", "5-hour limit reached ∙ resets 2am", nyNow, date(ny, 2026, time.November, 22, 2, 0)},
		{"rollover across a month end", "resets 2am", date(ny, 2026, time.November, 30, 23, 0), date(ny, 2026, time.December, 1, 2, 0)},
		{"rollover across a year end", "resets 2am", date(ny, 2026, time.December, 31, 23, 0), date(ny, 2027, time.January, 1, 2, 0)},
		{"just past is today's, not tomorrow's", "resets 1pm", nyNow, date(ny, 2026, time.November, 21, 13, 0)},
		{"rollover keeps the wall clock across a DST change", "resets 11am", date(ny, 2026, time.October, 31, 12, 0), date(ny, 2026, time.November, 1, 11, 0)},
		{"Codex 12-hour, upper case, full stop", "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:28 PM.", nyNow, date(ny, 2026, time.November, 21, 15, 28)},
		{"Codex 12-hour, past: tomorrow", "send a request to your admin or try again at 2:57 PM.", date(ny, 2026, time.November, 21, 16, 0), date(ny, 2026, time.November, 22, 14, 57)},
		{"Codex 24-hour", "try again at 14:05", nyNow, date(ny, 2026, time.November, 21, 14, 5)},
		{"24-hour past: tomorrow", "try again at 12:45", nyNow, date(ny, 2026, time.November, 22, 12, 45)},
		{"24-hour with seconds", "try again at 14:05:30", nyNow, date(ny, 2026, time.November, 21, 14, 5).Add(30 * time.Second)},
		{"mixed case", "TRY AGAIN AT 3:28 pm", nyNow, date(ny, 2026, time.November, 21, 15, 28)},
		{"narrow no-break space before PM", "try again at 3:28\u202fPM", nyNow, date(ny, 2026, time.November, 21, 15, 28)},
		{"colon after the cue", "Resets: 4pm", nyNow, date(ny, 2026, time.November, 21, 16, 0)},
		{"trailing punctuation", "resets 4pm!)", nyNow, date(ny, 2026, time.November, 21, 16, 0)},

		// Weekdays.
		{"weekly: next Monday", "You've hit your weekly limit · resets Mon 12:00am", nyNow, date(ny, 2026, time.November, 23, 0, 0)},
		{"weekday today, later today", "resets Sat 2pm", nyNow, date(ny, 2026, time.November, 21, 14, 0)},
		{"weekday today, just past: today", "resets Sat 1pm", nyNow, date(ny, 2026, time.November, 21, 13, 0)},
		{"weekday today, earlier: next week", "resets Sat 9am", nyNow, date(ny, 2026, time.November, 28, 9, 0)},
		{"weekday with 'at'", "resets Tuesday at 9am", nyNow, date(ny, 2026, time.November, 24, 9, 0)},
		{"weekday across a month end", "resets Tue 9am", date(ny, 2026, time.November, 28, 13, 5), date(ny, 2026, time.December, 1, 9, 0)},
		{"weekday with a zone", "resets Sun 12:00am (Asia/Tokyo)", utcNow, date(tokyo, 2026, time.November, 22, 0, 0)},
		{"weekday, zone makes it next week", "resets Sat 9pm (Asia/Tokyo)", utcNow, date(tokyo, 2026, time.November, 28, 21, 0)},

		// Dates.
		{"date this year", "resets Dec 1, 11:30am", nyNow, date(ny, 2026, time.December, 1, 11, 30)},
		{"date long past: next year", "You've hit your limit · resets Jan 18, 11:30am", nyNow, date(ny, 2027, time.January, 18, 11, 30)},
		{"date hours past: this year", "resets Nov 21, 9am", nyNow, date(ny, 2026, time.November, 21, 9, 0)},
		{"date over a day past: next year", "resets Nov 20, 9am", nyNow, date(ny, 2027, time.November, 20, 9, 0)},
		{"date with a zone", "You're out of extra usage · resets Dec 1, 11:30am (Asia/Colombo)", nyNow, date(colombo, 2026, time.December, 1, 11, 30)},
		{"date with a year", "resets January 18th, 2028, 11:30am", nyNow, date(ny, 2028, time.January, 18, 11, 30)},
		{"weekday and date", "resets Mon, Jan 18 at 9am", nyNow, date(ny, 2027, time.January, 18, 9, 0)},
		{"Codex time on a date", "try again at 3:28 PM on Jan 18.", nyNow, date(ny, 2027, time.January, 18, 15, 28)},

		// Durations.
		{"Codex days hours minutes", "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 17 hours 14 minutes.", nyNow, nyNow.Add(65*time.Hour + 14*time.Minute)},
		{"Copilot hours", "Sorry, you've hit a rate limit that restricts the number of Copilot model requests you can make within a specific time period. Please try again in 2 hours.", nyNow, nyNow.Add(2 * time.Hour)},
		{"Codex seconds, not its own retry", "stream disconnected before completion: Rate limit is exceeded. Try again in 17 seconds.; retrying 5/5 in 3.32s…", nyNow, nyNow.Add(17 * time.Second)},
		{"hour and min", "try again in 1 hour 5 min", nyNow, nyNow.Add(65 * time.Minute)},
		{"with and", "try again in 1 hour and 30 minutes", nyNow, nyNow.Add(90 * time.Minute)},
		{"with comma", "try again in 2 days, 3 hrs", nyNow, nyNow.Add(51 * time.Hour)},
		{"fraction", "Try again in 3.5 hours", nyNow, nyNow.Add(210 * time.Minute)},
		{"Gemini, not its own retry", "Attempt 1 failed: You have exhausted your capacity on this model. Your quota will reset after 5s.. Retrying after 6173ms...", nyNow, nyNow.Add(5 * time.Second)},
		{"compact", "reset after 1h2m3s", nyNow, nyNow.Add(time.Hour + 2*time.Minute + 3*time.Second)},
		{"milliseconds", "try again in 500ms", nyNow, nyNow.Add(500 * time.Millisecond)},
		{"retry after", "retry after 30 seconds", nyNow, nyNow.Add(30 * time.Second)},
		{"retry-after header", "HTTP 429\nretry-after: 120\n", nyNow, nyNow.Add(120 * time.Second)},
		{"Retry-After header, case", "Retry-After:120", nyNow, nyNow.Add(120 * time.Second)},
		{"resets in", "Your limit resets in 3 hours", nyNow, nyNow.Add(3 * time.Hour)},

		// Several forms: the most specific wins, then the earliest.
		{"epoch over zoned clock", "Claude AI usage limit reached|1795363200. Your limit will reset at 7pm (Asia/Tokyo).", nyNow, time.Unix(1795363200, 0)},
		{"ISO over zoned clock", "resets 2pm (Asia/Tokyo), that is, resets at 2026-11-22T05:00:00Z", nyNow, date(utc, 2026, time.November, 22, 5, 0)},
		{"zoned clock over weekday", "resets Mon 12:00am; session resets 2pm (Asia/Tokyo)", utcNow, date(tokyo, 2026, time.November, 22, 14, 0)},
		{"weekday over bare clock", "session resets 2am, weekly resets Mon 12:00am", nyNow, date(ny, 2026, time.November, 23, 0, 0)},
		{"clock over duration", "try again in 2 hours (resets 4pm)", nyNow, date(ny, 2026, time.November, 21, 16, 0)},
		{"earliest of two durations", "try again in 2 hours, or retry after 30 seconds", nyNow, nyNow.Add(2 * time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Parse(tt.msg, tt.now)
			if !ok || !got.Equal(tt.want) {
				t.Errorf("Parse(%q) = %v, %v; want %v (%v)", tt.msg, got, ok, tt.want.In(tt.now.Location()), tt.want.UTC())
			}
			if ok && got.Location() != tt.now.Location() {
				t.Errorf("Parse(%q) is in %v, want now's %v", tt.msg, got.Location(), tt.now.Location())
			}
		})
	}
}

func TestParseNoReset(t *testing.T) {
	now := date(zone(t, "America/New_York"), 2026, time.November, 21, 13, 5)
	for _, msg := range []string{
		"",
		"rate limit exceeded",
		"429 Too Many Requests",
		"exceeded retry limit, last status: 429 Too Many Requests, request id: abc123",
		"Please try again later.",
		"try again later",
		"resets soon",
		"Your limit resets when your monthly cycle ends",
		"Error: You've hit your usage limit. Get Cursor Pro for more Agent usage.",
		"You've reached your Opus limit. Run /usage-credits to keep going or switch models with /model",
		"5-hour limit reached",
		"ERROR: Quota exceeded. Check your plan and billing details.",
		"API Error: 529 Overloaded. This is a server-side issue",
		"Retrying after 6173ms...",
		"Retrying in 5 seconds… (attempt 2/10)",
		"the meeting is at 2pm (Asia/Tokyo)",
		"presets 2pm",
		"resets 13pm",
		"resets 0am",
		"resets 2:75pm",
		"try again at 25:00",
		"try again at 2 amazing people",
		"resets 5",
		"resets monthly 5 2pm",
		"resets Feb 30, 1pm",
		"resets at 2026-02-30T10:00:00Z",
		"resets at 2026-11-21T14:00:00+15:00",
		"try again in a few minutes",
		"try again in 17",
		"try again in 5 fortnights",
		"try again in 99999999999 days",
		"Claude AI usage limit reached|0",
		"Claude AI usage limit reached|99999999999999999999",
		"Claude AI usage limit reached|",
		"limit|1795363200",
	} {
		t.Run(msg, func(t *testing.T) {
			if got, ok := Parse(msg, now); ok || !got.IsZero() {
				t.Errorf("Parse(%q) = %v, %v; want no reset time", msg, got, ok)
			}
		})
	}
}

func TestEpoch(t *testing.T) {
	tests := []struct {
		name string
		v    float64
		want time.Time
		ok   bool
	}{
		{"seconds", 1795363200, time.Unix(1795363200, 0), true},
		{"fractional seconds", 1795363200.5, time.Unix(1795363200, 5e8), true},
		{"milliseconds", 1795363200123, time.Unix(1795363200, 123e6), true},
		{"milliseconds just over the threshold", 1e12 + 1, time.UnixMilli(1e12 + 1), true},
		{"one second after 1970", 1, time.Unix(1, 0), true},
		{"last second of 9999", maxUnix, time.Date(9999, time.December, 31, 23, 59, 59, 0, time.UTC), true},
		{"last millisecond of 9999", maxUnix*1e3 + 999, time.Date(9999, time.December, 31, 23, 59, 59, 999e6, time.UTC), true},
		{"seconds past 9999", maxUnix + 1, time.Time{}, false},
		{"the threshold itself is seconds, and absurd", 1e12, time.Time{}, false},
		{"milliseconds past 9999", (maxUnix + 1) * 1e3, time.Time{}, false},
		{"zero", 0, time.Time{}, false},
		{"negative", -1795363200, time.Time{}, false},
		{"NaN", math.NaN(), time.Time{}, false},
		{"+Inf", math.Inf(1), time.Time{}, false},
		{"-Inf", math.Inf(-1), time.Time{}, false},
		{"max float", math.MaxFloat64, time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Epoch(tt.v)
			if ok != tt.ok || !got.Equal(tt.want) {
				t.Errorf("Epoch(%v) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.ok)
			}
			if ok && got.Location() != time.UTC {
				t.Errorf("Epoch(%v) is in %v, want UTC", tt.v, got.Location())
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"Claude AI usage limit reached|1795363200",
		"resets at 2026-11-21T14:00:00+09:00",
		"You've hit your limit · resets 2pm (Asia/Shanghai)",
		"resets Mon, Jan 18, 2027 at 9am (America/Argentina/Buenos_Aires)",
		"try again at 3:28 PM on Jan 18.",
		"try again in 2 days, 17 hours and 14 minutes",
		"reset after 1h2m3s; retry-after: 120",
		"try again in 1.2.3 hours",
		"resets 12am",
		"Please try again later.",
	} {
		f.Add(seed)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		f.Fatal(err)
	}
	now := time.Date(2026, time.November, 21, 13, 5, 0, 0, ny)
	f.Fuzz(func(t *testing.T, msg string) {
		at, ok := Parse(msg, now)
		if !ok && !at.IsZero() {
			t.Errorf("Parse(%q) = %v, false; want the zero time with false", msg, at)
		}
		if again, okAgain := Parse(msg, now); okAgain != ok || !again.Equal(at) {
			t.Errorf("Parse(%q) gave %v, %v then %v, %v", msg, at, ok, again, okAgain)
		}
	})
}
