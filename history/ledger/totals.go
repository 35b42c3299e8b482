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
	// WithoutCost counts the iterations whose agent reported no cost: CostUSD leaves them
	// out, so it is a lower bound then, and no figure at all when every iteration is one.
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
	if !e.CostReported {
		t.WithoutCost++
	}
}

// Tokens is the input and output tokens, as Entry.Tokens counts them.
func (t Totals) Tokens() int64 { return t.Input + t.Output }

// Cache is the tokens read from and written to the prompt cache.
func (t Totals) Cache() int64 { return t.CacheRead + t.CacheWrite }
