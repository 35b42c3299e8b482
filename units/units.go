package units

import (
	"fmt"
	"strconv"
	"strings"
)

// Size writes a byte count: 512 B, 1.2 KiB, 10.0 MiB.
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

// Count writes a whole number with thousands separators: 1,234,567 (and -1,234).
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

// NotReported stands where a cost would be when the agent reported none (codex, gemini):
// never "$0.00", which would say it cost nothing.
const NotReported = "cost not reported"

// Cost writes a spend summed over parts of which unreported did not report a cost:
// "$0.42" when every part did, "at least $0.42 (some iterations did not report a cost)"
// when some did not, NotReported when none did.
func Cost(usd float64, unreported int) string {
	switch {
	case unreported == 0:
		return Dollars(usd)
	case usd > 0:
		return "at least " + Dollars(usd) + " (some iterations did not report a cost)"
	}
	return NotReported
}
