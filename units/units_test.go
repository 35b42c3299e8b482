package units

import "testing"

func TestUnits(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Size(512), "512 B"}, {Size(1536), "1.5 KiB"}, {Size(10 << 20), "10.0 MiB"}, {Size(3 << 30), "3.0 GiB"},
		{Dollars(0), "$0.00"}, {Dollars(0.5), "$0.50"}, {Dollars(0.0842316), "$0.0842"}, {Dollars(12.345), "$12.35"},
		{Cost(0.42, 0), "$0.42"}, {Cost(0, 0), "$0.00"}, {Cost(0, 3), "cost not reported"},
		{Cost(0.42, 1), "at least $0.42 (some iterations did not report a cost)"},
		{Count(0), "0"}, {Count(999), "999"}, {Count(1234567), "1,234,567"}, {Count(-1234), "-1,234"}, {Count(-123), "-123"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
