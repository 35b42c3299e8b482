package apiagent

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// Price is what a model's tokens cost, in US dollars per million tokens of each kind.
type Price struct {
	Input      float64 `toml:"input"`
	Output     float64 `toml:"output"`
	CacheRead  float64 `toml:"cache_read"`
	CacheWrite float64 `toml:"cache_write"`
}

// Cost is what u costs at p, in US dollars: each count at its own price (Usage keeps
// the cache apart from the input).
func (p Price) Cost(u Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// PriceTable is the built-in price of each model (prices.toml, embedded) and the date
// it was written.
type PriceTable struct {
	Date   string           `toml:"date"`
	Models map[string]Price `toml:"models"`
}

//go:embed prices.toml
var pricesFile []byte

var builtinPrices = sync.OnceValues(func() (PriceTable, error) {
	var t PriceTable
	if err := toml.Unmarshal(pricesFile, &t); err != nil {
		return t, fmt.Errorf("the built-in price table: %w", err)
	}
	return t, nil
})

// Prices is the built-in price table; its test fails a prices.toml it cannot read, so
// that the error is never a user's.
func Prices() PriceTable {
	t, _ := builtinPrices()
	return t
}

// For is the price of model and the name it is listed under: its own, else that of the
// name model is a dated snapshot or the latest alias of ("claude-sonnet-4-5-20250929",
// "gpt-4o-2024-08-06", "claude-3-7-sonnet-latest"); false when the table has none, and
// the cost is unknown. Another suffix is another model ("o3-pro" is not "o3", and costs
// ten times as much), never priced as its stem.
func (t PriceTable) For(model string) (Price, string, bool) {
	if p, ok := t.Models[model]; ok {
		return p, model, true
	}
	best := ""
	for name := range t.Models {
		rest, ok := strings.CutPrefix(model, name+"-")
		if ok && (rest == "latest" || rest != "" && rest[0] >= '0' && rest[0] <= '9') && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return Price{}, "", false
	}
	return t.Models[best], best, true
}
