package display

import (
	"fmt"
	"strconv"
	"strings"
	"time"
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
func Size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Plural counts a noun: "1 iteration", "3 iterations".
func Plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Dollars writes an amount in US dollars: to the cent from a dollar up, finer below
// ("$0.0842"), as agents report the cost of one iteration.
func Dollars(f float64) string {
	if f >= 1 || f == 0 {
		return fmt.Sprintf("$%.2f", f)
	}
	s := strings.TrimRight(fmt.Sprintf("%.4f", f), "0")
	if len(s) < 4 { // "0.5" → "0.50"
		s += strings.Repeat("0", 4-len(s))
	}
	return "$" + s
}

// Count writes a whole number with thousands separators: 1,234,567.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	start := 0
	if n < 0 {
		start = 1
	}
	for i := len(s) - 3; i > start; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
