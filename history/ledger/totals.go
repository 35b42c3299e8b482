package ledger

import "time"

// Totals sums entries: what a range of commits cost.
type Totals struct {
	Iterations int           `json:"iterations"`
	Input      int64         `json:"input_tokens"`
	Output     int64         `json:"output_tokens"`
	CacheRead  int64         `json:"cache_read_tokens"`
	CacheWrite int64         `json:"cache_write_tokens"`
	CostUSD    float64       `json:"cost_usd"`
	Duration   time.Duration `json:"-"`
	// WithoutCost counts the iterations whose agent reported no cost: CostUSD leaves them out.
	WithoutCost int `json:"iterations_without_cost"`
}

// Add counts entry e.
func (t *Totals) Add(e Entry) {
	t.Iterations++
	t.Input += e.Input
	t.Output += e.Output
	t.CacheRead += e.CacheRead
	t.CacheWrite += e.CacheWrite
	t.CostUSD += e.CostUSD
	t.Duration += e.Duration
	if e.CostUSD == 0 {
		t.WithoutCost++
	}
}

// Tokens is the total of every kind.
func (t Totals) Tokens() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }
