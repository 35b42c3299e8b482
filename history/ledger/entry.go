package ledger

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Version is the format version written in each entry's first line. A reader takes the
// entries of its own version and older; a field added later that changes no existing
// field's meaning keeps the version (readers skip keys they do not know), anything else
// bumps it.
const Version = 1

// headerPrefix starts every entry: "git-ralph ledger v1".
const headerPrefix = "git-ralph ledger v"

// Bounds of what a reader accepts: notes come from remotes, which may be hostile.
const (
	MaxNote    = 64 << 10 // bytes of one commit's note
	maxEntries = 1000     // entries in one note
	maxValue   = 500      // bytes of one value
	maxCount   = 1_000_000_000
	maxTokens  = 1 << 50
)

// Entry is one iteration of a loop, as the note on its last commit tells it.
type Entry struct {
	Run        string        `json:"run"`
	Iteration  int           `json:"iteration"`        // within the run, 1-based
	Record     int           `json:"record,omitempty"` // its number in the history of the work tree that ran it
	Mode       string        `json:"mode"`
	Agent      string        `json:"agent,omitempty"` // the preset; "" for a custom command
	Model      string        `json:"model,omitempty"`
	Started    time.Time     `json:"started,omitzero"`
	Duration   time.Duration `json:"-"`
	Outcome    string        `json:"outcome"`
	Validation string        `json:"validation,omitempty"` // "passed", "failed: exit code 2"; "" when none ran
	Input      int64         `json:"input_tokens,omitempty"`
	Output     int64         `json:"output_tokens,omitempty"`
	CacheRead  int64         `json:"cache_read_tokens,omitempty"`
	CacheWrite int64         `json:"cache_write_tokens,omitempty"`
	CostUSD    float64       `json:"cost_usd,omitempty"`
	// CostReported is true when the agent reported a cost, 0 included: the note has a
	// cost_usd line then, and none when the agent reported no cost (codex, gemini).
	CostReported bool   `json:"cost_reported"`
	Before       string `json:"before,omitempty"`  // the commit the iteration started from; "" on an unborn branch
	Commits      int    `json:"commits,omitempty"` // how many commits it made (this one the last)
	// The stagnation check's figures (history.Similarity): the percentages of the final
	// message and of the validation failure alike to the previous iteration's (0: not
	// measured, or nothing alike), and how many iterations in a row were alike (from 2).
	SimilarMessage    int `json:"similarity_message,omitempty"`
	SimilarValidation int `json:"similarity_validation,omitempty"`
	Repeats           int `json:"repeats,omitempty"`
	// The judge's verdict (PASS, FAIL, error; "" when none ran) and what it cost, which
	// is not in the tokens and cost above (the agent's).
	Judge        string  `json:"judge,omitempty"`
	JudgeTokens  int64   `json:"judge_tokens,omitempty"`
	JudgeCostUSD float64 `json:"judge_cost_usd,omitempty"`
}

// Tokens is the entry's input and output tokens, as the agent counted them: what the
// budgets (max_tokens) and a run's summary call tokens. The cache's reads and writes are
// apart (Cache): codex and gemini count the cache reads inside their input already,
// claude and opencode beside it.
func (e Entry) Tokens() int64 { return e.Input + e.Output }

// Cache is the entry's tokens read from and written to the prompt cache.
func (e Entry) Cache() int64 { return e.CacheRead + e.CacheWrite }

// field is one `key: value` line of an entry. A new field is one more row of fields (and
// its member of Entry): get returns "" to leave the line out.
type field struct {
	key      string
	required bool
	get      func(*Entry) string
	set      func(*Entry, string) error
}

var fields = []field{
	text("run", true, func(e *Entry) *string { return &e.Run }),
	count("iteration", true, 1, func(e *Entry) *int { return &e.Iteration }),
	count("record", false, 1, func(e *Entry) *int { return &e.Record }),
	text("mode", true, func(e *Entry) *string { return &e.Mode }),
	text("agent", false, func(e *Entry) *string { return &e.Agent }),
	text("model", false, func(e *Entry) *string { return &e.Model }),
	instant("started", func(e *Entry) *time.Time { return &e.Started }),
	duration("duration", func(e *Entry) *time.Duration { return &e.Duration }),
	text("outcome", true, func(e *Entry) *string { return &e.Outcome }),
	text("validation", false, func(e *Entry) *string { return &e.Validation }),
	tokens("input_tokens", func(e *Entry) *int64 { return &e.Input }),
	tokens("output_tokens", func(e *Entry) *int64 { return &e.Output }),
	tokens("cache_read_tokens", func(e *Entry) *int64 { return &e.CacheRead }),
	tokens("cache_write_tokens", func(e *Entry) *int64 { return &e.CacheWrite }),
	reportedCost(),
	commit("before", func(e *Entry) *string { return &e.Before }),
	count("commits", false, 1, func(e *Entry) *int { return &e.Commits }),
	percent("similarity_message", func(e *Entry) *int { return &e.SimilarMessage }),
	percent("similarity_validation", func(e *Entry) *int { return &e.SimilarValidation }),
	count("repeats", false, 2, func(e *Entry) *int { return &e.Repeats }),
	text("judge", false, func(e *Entry) *string { return &e.Judge }),
	tokens("judge_tokens", func(e *Entry) *int64 { return &e.JudgeTokens }),
	decimal("judge_cost_usd", func(e *Entry) *float64 { return &e.JudgeCostUSD }),
}

// percent is a percentage from 1 to 100, left out when 0.
func percent(key string, at func(*Entry) *int) field {
	f := count(key, false, 1, at)
	set := f.set
	f.set = func(e *Entry, v string) error {
		if err := set(e, v); err != nil {
			return err
		}
		if *at(e) > 100 {
			return fmt.Errorf("%s is out of range (1 to 100)", v)
		}
		return nil
	}
	return f
}

func text(key string, required bool, at func(*Entry) *string) field {
	return field{key, required, func(e *Entry) string { return clean(*at(e)) },
		func(e *Entry, v string) error { *at(e) = v; return nil }}
}

func count(key string, required bool, least int, at func(*Entry) *int) field {
	get := func(e *Entry) string {
		if *at(e) < least {
			return ""
		}
		return strconv.Itoa(*at(e))
	}
	return field{key, required, get, func(e *Entry, v string) error {
		n, err := number(v, int64(least), maxCount)
		*at(e) = int(n)
		return err
	}}
}

func tokens(key string, at func(*Entry) *int64) field {
	get := func(e *Entry) string {
		if *at(e) <= 0 {
			return ""
		}
		return strconv.FormatInt(*at(e), 10)
	}
	return field{key, false, get, func(e *Entry, v string) error {
		n, err := number(v, 0, maxTokens)
		*at(e) = n
		return err
	}}
}

// number parses a decimal integer in [least, most], digits only: no sign, no spaces.
func number(v string, least, most int64) (int64, error) {
	if v == "" || strings.TrimLeft(v, "0123456789") != "" || len(v) > 19 {
		return 0, fmt.Errorf("%q is not a whole number", v)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < least || n > most {
		return 0, fmt.Errorf("%s is out of range (%d to %d)", v, least, most)
	}
	return n, nil
}

// decimal is a non-negative number written in decimal notation (no exponent), left out
// when zero: an amount in dollars, a ratio.
func decimal(key string, at func(*Entry) *float64) field {
	get := func(e *Entry) string {
		if !(*at(e) > 0) || *at(e) > maxTokens {
			return ""
		}
		return strconv.FormatFloat(*at(e), 'f', -1, 64)
	}
	return field{key, false, get, func(e *Entry, v string) error {
		if v == "" || strings.TrimLeft(v, "0123456789.") != "" {
			return fmt.Errorf("%q is not an amount", v)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f > maxTokens {
			return fmt.Errorf("%q is not an amount", v)
		}
		*at(e) = f
		return nil
	}}
}

// reportedCost is cost_usd: written whenever the agent reported a cost, 0 included, and
// read as reported when present. Notes written before a reported 0 was kept have no line
// for it, and read as no cost reported.
func reportedCost() field {
	f := decimal("cost_usd", func(e *Entry) *float64 { return &e.CostUSD })
	get, set := f.get, f.set
	f.get = func(e *Entry) string {
		if v := get(e); v != "" || !e.CostReported {
			return v
		}
		return "0"
	}
	f.set = func(e *Entry, v string) error {
		e.CostReported = true
		return set(e, v)
	}
	return f
}

func duration(key string, at func(*Entry) *time.Duration) field {
	return field{key, true, func(e *Entry) string { return max(0, *at(e)).String() }, func(e *Entry, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || strings.ContainsAny(v, "+- ") {
			return fmt.Errorf("%q is not a duration", v)
		}
		*at(e) = d
		return nil
	}}
}

func instant(key string, at func(*Entry) *time.Time) field {
	get := func(e *Entry) string {
		if !inRange(*at(e)) {
			return ""
		}
		return at(e).UTC().Format(time.RFC3339)
	}
	return field{key, false, get, func(e *Entry, v string) error {
		t, err := time.Parse(time.RFC3339, v)
		t = t.UTC().Truncate(time.Second) // as written: to the second, in UTC
		if err != nil || !inRange(t) {
			return fmt.Errorf("%q is not a time (RFC 3339, years 1970 to 9999)", v)
		}
		*at(e) = t
		return nil
	}}
}

// inRange reports whether t is a time a note may carry (the zero time is not).
func inRange(t time.Time) bool {
	return t.Year() >= 1970 && t.Year() <= 9999
}

func commit(key string, at func(*Entry) *string) field {
	return field{key, false, func(e *Entry) string { return *at(e) }, func(e *Entry, v string) error {
		if !IsHash(v) {
			return fmt.Errorf("%q is not a commit hash", v)
		}
		*at(e) = v
		return nil
	}}
}

// IsHash reports whether v is a full object name: 40 (SHA-1) or 64 (SHA-256) lower-case
// hex digits.
func IsHash(v string) bool {
	return (len(v) == 40 || len(v) == 64) && strings.Trim(v, "0123456789abcdef") == ""
}

// clean makes a value fit one line that reads back: characters that would not print as
// themselves become '?', and it is cut to maxValue bytes at a rune boundary.
func clean(v string) string {
	v = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !printable(r) {
			return '?'
		}
		return r
	}, strings.TrimSpace(v))
	if len(v) > maxValue {
		cut := maxValue
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		v = v[:cut]
	}
	return v
}

// printable is what a value may hold: no control, format (bidirectional) or other
// invisible character, so that `git log --notes` shows what a reader parses.
func printable(r rune) bool {
	return r == ' ' || unicode.IsPrint(r)
}
