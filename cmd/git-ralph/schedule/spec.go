package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

// cronField is one of the five fields of a cron schedule: its allowed numbers and, for
// month and day of week, the three-letter names cron accepts for them.
type cronField struct {
	name     string
	min, max int
	names    []string // names[i] stands for min+i
}

// cronFields are the five fields in crontab order, with the ranges of crontab(5).
var cronFields = [5]cronField{
	{name: "minute", min: 0, max: 59},
	{name: "hour", min: 0, max: 23},
	{name: "day of month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{name: "day of week", min: 0, max: 7, names: []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun"}},
}

// cronMacros are the @-schedules that both Vixie cron (Debian, macOS) and cronie
// (Fedora, Arch) understand in place of the five fields.
var cronMacros = []string{"@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually", "@reboot"}

// cronSpecHint says what a schedule looks like.
const cronSpecHint = `a schedule is five fields, minute hour day-of-month month day-of-week, e.g.
"0 2 * * *" (every night at 02:00) or "30 1 * * mon-fri"; each field takes *, N, N-M,
lists (1,15) and steps (*/15, 0-30/5); or use @hourly, @daily, @weekly, @monthly,
@yearly or @reboot. Quote the schedule: --cron "0 2 * * *"`

// ParseSpec checks a schedule the way cron reads it and returns it in the form it is
// written into the crontab: the fields separated by single spaces.
func ParseSpec(spec string) (string, error) {
	fields := strings.Fields(spec)
	if len(fields) == 1 && strings.HasPrefix(fields[0], "@") {
		return checkMacro(spec, fields[0])
	}
	if len(fields) != len(cronFields) {
		return "", specError(spec, fmt.Errorf("it has %d fields, not 5", len(fields)))
	}
	for i, f := range fields {
		if err := cronFields[i].check(f); err != nil {
			return "", specError(spec, fmt.Errorf("%s field %q: %w", cronFields[i].name, f, err))
		}
	}
	return strings.Join(fields, " "), nil
}

// checkMacro accepts one of the @-schedules, in any case.
func checkMacro(spec, word string) (string, error) {
	for _, m := range cronMacros {
		if strings.EqualFold(word, m) {
			return m, nil
		}
	}
	return "", specError(spec, fmt.Errorf("%s is not one of %s", word, strings.Join(cronMacros, ", ")))
}

// specError names the schedule and what is wrong with it.
func specError(spec string, err error) error {
	return hints.Wrap(fmt.Errorf("invalid cron schedule %q: %w", spec, err), "%s", cronSpecHint)
}

// check reads one field: a comma-separated list of items.
func (f cronField) check(field string) error {
	for _, item := range strings.Split(field, ",") {
		if item == "" {
			return errors.New("an empty list item")
		}
		if err := f.checkItem(item); err != nil {
			return err
		}
	}
	return nil
}

// checkItem reads *, N, N-M, each optionally followed by /STEP.
func (f cronField) checkItem(item string) error {
	rng, step, stepped := strings.Cut(item, "/")
	lo, hi, err := f.readRange(rng)
	if err != nil || !stepped {
		return err
	}
	if rng != "*" && lo == hi {
		// cronie reads "5/10" as 5-MAX/10, Vixie cron rejects it: ask for the form both read
		return fmt.Errorf("a step needs a range: write %d-%d/%s", lo, f.max, step)
	}
	n, err := strconv.Atoi(step)
	if err != nil || n < 1 || n > f.max-f.min+1 || !isDigits(step) {
		return fmt.Errorf("step %q is not a number from 1 to %d", step, f.max-f.min+1)
	}
	return nil
}

// readRange reads *, N or N-M and returns the numbers it spans.
func (f cronField) readRange(rng string) (lo, hi int, err error) {
	if rng == "*" {
		return f.min, f.max, nil
	}
	first, last, isRange := strings.Cut(rng, "-")
	if lo, err = f.value(first); err != nil || !isRange {
		return lo, lo, err
	}
	if hi, err = f.value(last); err != nil {
		return 0, 0, err
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("range %s runs backwards (cron does not wrap around)", rng)
	}
	return lo, hi, nil
}

// value reads a number in the field's range, or one of its names.
func (f cronField) value(word string) (int, error) {
	for i, name := range f.names {
		if strings.EqualFold(word, name) {
			return f.min + i, nil
		}
	}
	n, err := strconv.Atoi(word)
	if err != nil || !isDigits(word) {
		if f.names != nil {
			return 0, fmt.Errorf("%q is not a number from %d to %d nor a name like %s", word, f.min, f.max, f.names[0])
		}
		return 0, fmt.Errorf("%q is not a number from %d to %d", word, f.min, f.max)
	}
	if n < f.min || n > f.max {
		return 0, fmt.Errorf("%d is out of range %d-%d", n, f.min, f.max)
	}
	return n, nil
}

// isDigits reports whether s is a plain decimal number: Atoi also takes "+5".
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
