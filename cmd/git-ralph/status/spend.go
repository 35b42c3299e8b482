package status

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history"
)

// Spend is what a run spent against its budgets (as its state keeps them), and what all
// the user's loops on this machine spent today.
type Spend struct {
	SpentUSD    float64 `json:"spent_usd"`
	SpentTokens int64   `json:"spent_tokens"`
	// SpentUncosted counts the attempts that reported tokens but no cost: spent_usd is
	// a lower bound then, or no figure at all when it is 0.
	SpentUncosted int     `json:"spent_uncosted,omitempty"`
	MaxCost       float64 `json:"max_cost,omitempty"`   // 0: none
	MaxTokens     int64   `json:"max_tokens,omitempty"` // 0: none
	// DailyMaxCost is the daily budget the run ran with (0: none); the day's spend is the
	// user's, in `status` (today) and the last line of `runs`.
	DailyMaxCost float64 `json:"daily_max_cost,omitempty"`
}

// RunSpend is the spend of the run st describes; nil when it neither spent nor had a budget.
func RunSpend(st *history.State) *Spend {
	if st == nil || st.SpentUSD == 0 && st.SpentTokens == 0 && st.MaxCost == 0 && st.MaxTokens == 0 && st.DailyMaxCost == 0 {
		return nil
	}
	return &Spend{SpentUSD: st.SpentUSD, SpentTokens: st.SpentTokens, SpentUncosted: st.SpentUncosted, MaxCost: st.MaxCost, MaxTokens: st.MaxTokens, DailyMaxCost: st.DailyMaxCost}
}

// Line writes the run's spend against its budgets: "$4.00 of $4.50 (max_cost); 12,000
// tokens", "cost not reported; 12,000 tokens".
func (s Spend) Line() string {
	cost := against(s.SpentUSD, s.SpentUncosted, s.MaxCost, "max_cost")
	tokens := display.Count(s.SpentTokens) + " tokens"
	if s.MaxTokens > 0 {
		tokens = display.Count(s.SpentTokens) + " of " + display.Count(s.MaxTokens) + " tokens (max_tokens)"
	}
	return cost + "; " + tokens
}

// against writes a spend, of which unreported attempts had no cost reported, against
// the budget key of limit (0: none): "$4.00 of $4.50 (max_cost)"; "at least $0.25 of
// $10.00 (max_cost; some iterations did not report a cost)"; "cost not reported
// (max_cost $10.00 counts reported costs only)".
func against(usd float64, unreported int, limit float64, key string) string {
	switch {
	case limit <= 0:
		return display.Cost(usd, unreported)
	case unreported == 0:
		return display.Dollars(usd) + " of " + display.Dollars(limit) + " (" + key + ")"
	case usd > 0:
		return "at least " + display.Dollars(usd) + " of " + display.Dollars(limit) + " (" + key + "; some iterations did not report a cost)"
	}
	return display.Cost(0, unreported) + " (" + key + " " + display.Dollars(limit) + " counts reported costs only)"
}

// Today is what the user's loops on this machine spent on now's local day, with the
// daily budget of the last run that ran with one (0: none known); nil when nothing is
// recorded. A daily spend file that cannot be read is shown as its error.
type Today struct {
	history.DailySpend
	DailyMaxCost float64 `json:"daily_max_cost,omitempty"`
	Problem      string  `json:"problem,omitempty"`
}

// ReadToday reads today's spend; daily is the daily budget to show it against.
func ReadToday(now time.Time, daily float64) *Today {
	store, err := history.UserSpend()
	if err != nil {
		return nil
	}
	d, err := store.Day(now)
	if err != nil {
		return &Today{DailySpend: history.DailySpend{Day: d.Day}, DailyMaxCost: daily, Problem: err.Error()}
	}
	if d.Attempts == 0 && daily == 0 {
		return nil
	}
	return &Today{DailySpend: d, DailyMaxCost: daily}
}

// Line writes today's spend: "$3.10 of $20.00 (daily_max_cost), all your loops".
func (t Today) Line() string {
	if t.Problem != "" {
		return "unknown: " + t.Problem
	}
	s := against(t.CostUSD, t.Uncosted, t.DailyMaxCost, "daily_max_cost")
	return strings.TrimSpace(fmt.Sprintf("%s, %s tokens, by all your loops on this machine (%s)", s, display.Count(t.Tokens), t.Day))
}
