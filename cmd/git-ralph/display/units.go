package display

import (
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/units"
)

// Duration prints 12ms under a second, 45.2s under a minute and 2m16s above.
func Duration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// Size prints a byte count for people: 10.0 MiB, 512 B.
func Size(n int64) string { return units.Size(n) }

// Plural counts a noun: "1 iteration", "3 iterations".
func Plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Dollars writes an amount in US dollars: to the cent from a dollar up, finer below
// ("$0.0842"), as agents report the cost of one iteration.
func Dollars(f float64) string { return units.Dollars(f) }

// Count writes a whole number with thousands separators: 1,234,567.
func Count(n int64) string { return units.Count(n) }

// Cost writes a spend of which unreported parts had no cost reported: "$0.42", "at least
// $0.42 (some iterations did not report a cost)" or "cost not reported".
func Cost(usd float64, unreported int) string { return units.Cost(usd, unreported) }
