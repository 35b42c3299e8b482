package display

import "testing"

func TestDollarsAndCount(t *testing.T) {
	for f, want := range map[float64]string{0: "$0.00", 4: "$4.00", 12.345: "$12.35", 0.0842316: "$0.0842", 0.5: "$0.50", 0.05: "$0.05", 0.001: "$0.001"} {
		if got := Dollars(f); got != want {
			t.Errorf("Dollars(%v) = %s, want %s", f, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1500: "-1,500", -100: "-100"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %s, want %s", n, got, want)
		}
	}
}
