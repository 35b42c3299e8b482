package apiagent

import (
	"math"
	"testing"
)

// The embedded table reads, has its date, and prices a model by its name or a dated
// snapshot of it, never by a stem that names another model; an unknown model has no
// price (its cost is unknown, not free).
func TestPriceTable(t *testing.T) {
	if _, err := builtinPrices(); err != nil {
		t.Fatal(err)
	}
	table := Prices()
	if table.Date == "" || len(table.Models) < 10 {
		t.Fatalf("table of %q with %d models", table.Date, len(table.Models))
	}
	for model, want := range map[string]string{
		"claude-sonnet-4-5":          "claude-sonnet-4-5",
		"claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
		"claude-3-7-sonnet-latest":   "claude-3-7-sonnet",
		"gpt-4o-mini-2024-07-18":     "gpt-4o-mini",
		"gpt-5-mini":                 "gpt-5-mini",
		"o3-pro":                     "",
		"gpt-5-codex":                "",
		"qwen2.5-coder":              "",
		"":                           "",
	} {
		_, name, ok := table.For(model)
		if name != want || ok != (want != "") {
			t.Errorf("For(%q) = %q, %v; want %q", model, name, ok, want)
		}
	}
	for name, p := range table.Models {
		if p.Input <= 0 || p.Output <= 0 || p.CacheRead < 0 || p.CacheWrite < 0 || p.CacheRead >= p.Input {
			t.Errorf("%s: implausible price %+v", name, p)
		}
	}
}

// Each count is paid at its own price: the input without the cache, the cache reads and
// writes apart.
func TestPriceCost(t *testing.T) {
	p := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	got := p.Cost(Usage{Input: 1_000_000, Output: 200_000, CacheRead: 2_000_000, CacheWrite: 100_000})
	if want := 3 + 3 + 0.6 + 0.375; math.Abs(got-want) > 1e-9 {
		t.Errorf("Cost = %v, want %v", got, want)
	}
}
