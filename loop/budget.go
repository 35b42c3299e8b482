package loop

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/units"
)

// Budget is what a run, and the user's day, may spend, as the agent reports its usage,
// every attempt counted (a limited or retried attempt was paid for too). Zero: no budget.
type Budget struct {
	MaxCost      float64 // US dollars per run
	MaxTokens    int64   // input + output tokens per run
	DailyMaxCost float64 // US dollars per local day, for all the user's loops on this machine
	// Daily is the user's store of daily spend. Every attempt's usage is added to it,
	// whether or not DailyMaxCost is set, so that a daily budget set later in the day
	// counts what was spent before it. nil: nothing recorded, DailyMaxCost not enforced.
	Daily *history.Spend
}

// set reports whether any budget is set.
func (b Budget) set() bool { return b.MaxCost > 0 || b.MaxTokens > 0 || b.DailyMaxCost > 0 }

// runMean is what a budget's next iteration is usually reckoned from.
const runMean = "the run's mean per iteration"

// warnAt is the share of a budget at which the loop warns, once per run.
const warnAt = 0.8

// budgets keeps the run's spend and weighs it against the budgets: it reads and writes
// only the state's spend (the run's sums, the warnings given) and the user's daily store.
type budgets struct {
	Budget
	// replay: a replayed recording's usage was paid when it was recorded; replaying it
	// spends nothing of the user's day (the run's own max_cost and max_tokens do count it,
	// so that budgets can be tried on a replay)
	replay      bool
	now         func() time.Time
	warn        func(string)
	dailyWarned bool // a problem with the daily spend store was reported
}

// spend adds one attempt's usage to the run's spend, kept in the state so that a resumed
// run goes on counting, and to the user's day.
func (b *budgets) spend(st *stateFile, u agentcli.Usage) {
	cost, tokens := 0.0, addTokens(max(0, u.InputTokens), max(0, u.OutputTokens))
	if u.HasCost && u.CostUSD > 0 && !math.IsInf(u.CostUSD, 0) {
		cost = u.CostUSD
	}
	if cost == 0 && tokens == 0 {
		return
	}
	st.SpentUSD, st.SpentTokens = st.SpentUSD+cost, addTokens(st.SpentTokens, tokens)
	if !u.HasCost {
		st.SpentUncosted++ // tokens were spent, at a cost the agent did not say
	}
	st.saveOrWarn(b.warn)
	daily := b.Daily
	if daily == nil || b.replay {
		return
	}
	add := daily.Add
	if !u.HasCost {
		add = func(now time.Time, _ float64, tokens int64) (history.DailySpend, error) {
			return daily.AddUncosted(now, tokens)
		}
	}
	if _, err := add(b.now(), cost, tokens); err != nil {
		b.warnDaily(err)
	}
}

// addTokens adds two non-negative token counts, stopping at the largest int64: a count
// an agent reports can be anything, and a sum that wrapped negative would be a credit
// against max_tokens (and a state file the next loop refuses).
func addTokens(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// warnDaily reports a problem with the daily spend store, once per invocation: it recurs
// with every attempt. A file moved aside is said whatever was said before: the budget
// check before the iteration finds it first, and the warning it gave (remove the file)
// no longer holds once the attempt's spend has moved it.
func (b *budgets) warnDaily(err error) {
	c, corrupt := err.(*history.CorruptSpendError)
	moved := corrupt && c.Moved != ""
	if b.dailyWarned && !moved {
		return
	}
	b.dailyWarned = true
	msg := "daily spend: " + err.Error()
	if corrupt {
		msg += "\n" + c.Hint()
	}
	b.warn(msg)
}

// budgetLine is one budget as the loop weighs it before an iteration.
type budgetLine struct {
	cause        string  // max_cost, max_tokens or daily_max_cost
	spent, limit float64 // dollars, or tokens
	next         float64 // what one more iteration is expected to take; 0: unknown
	basis        string  // what next is reckoned from
	tokens       bool
	day          string // daily_max_cost: the local day
}

// lines are the budgets set, with what is spent against them and what one more
// iteration is expected to take: the run's mean per iteration so far. Before the run's
// first iteration there is none, and it runs, except against daily_max_cost when the
// day's loops spent already: then their mean per attempt stands in.
func (b *budgets) lines(st history.State) []budgetLine {
	meanCost, meanTokens := 0.0, 0.0
	if n := float64(st.SpentIterations); n > 0 {
		meanCost, meanTokens = st.SpentUSD/n, float64(st.SpentTokens)/n
	}
	var lines []budgetLine
	if b.MaxCost > 0 {
		lines = append(lines, budgetLine{cause: "max_cost", spent: st.SpentUSD, limit: b.MaxCost, next: meanCost, basis: runMean})
	}
	if b.MaxTokens > 0 {
		lines = append(lines, budgetLine{cause: "max_tokens", spent: float64(st.SpentTokens), limit: float64(b.MaxTokens), next: meanTokens, basis: runMean, tokens: true})
	}
	if b.DailyMaxCost > 0 && b.Daily != nil {
		today, err := b.Daily.Day(b.now())
		if err != nil {
			b.warnDaily(err)
		} else {
			next, basis := meanCost, runMean
			// a new run: reckoned from the day's loops, by their runs that reported a cost (a
			// codex loop's runs, whose cost is not known, would lower the mean)
			if costed := today.Attempts - today.Uncosted; st.SpentIterations == 0 && costed > 0 {
				next, basis = today.CostUSD/float64(costed), "the mean per agent run of your loops today"
			}
			lines = append(lines, budgetLine{cause: "daily_max_cost", spent: today.CostUSD, limit: b.DailyMaxCost, next: next, basis: basis, day: today.Day})
		}
	}
	return lines
}

// over decides before an iteration (or an attempt run again after a limit) whether
// the budgets can be expected to cover it, warning once per run at 80 % of each. When
// one cannot, it returns the stop: the cause, why in words and what to do.
func (b *budgets) over(st *stateFile) (halt, bool) {
	for _, l := range b.lines(st.State) {
		b.warnNear(st, l)
		// a hair of slack: ten iterations of $0.10 sum to a little more than $1.00
		if l.spent >= l.limit || l.spent+l.next > l.limit*(1+1e-9) {
			return halt{stop: StatusBudget, why: l.reason(), hint: l.hint(), cause: l.cause}, true
		}
	}
	return halt{}, false
}

// warnNear warns once per run (the state remembers it) when l is 80 % spent.
func (b *budgets) warnNear(st *stateFile, l budgetLine) {
	key := l.cause + "=" + strconv.FormatFloat(l.limit, 'g', -1, 64) + l.atDay()
	if l.spent < warnAt*l.limit || st.Warned(key) {
		return
	}
	st.AddWarned(key)
	b.warn(fmt.Sprintf("budget: %s (%.0f %%)", l.used(), 100*l.spent/l.limit))
	st.saveOrWarn(b.warn)
}

func (l budgetLine) atDay() string {
	if l.day == "" {
		return ""
	}
	return "@" + l.day
}

// used says what is spent of l: "the run has spent $4.10 of max_cost $5.00".
func (l budgetLine) used() string {
	switch {
	case l.tokens:
		return fmt.Sprintf("the run has used %s of max_tokens %s tokens", tokenCount(l.spent), tokenCount(l.limit))
	case l.day != "":
		return fmt.Sprintf("your loops on this machine have spent %s today (%s) of daily_max_cost %s", units.Dollars(l.spent), l.day, units.Dollars(l.limit))
	}
	return fmt.Sprintf("the run has spent %s of max_cost %s", units.Dollars(l.spent), units.Dollars(l.limit))
}

// reason is why the run stops for l.
func (l budgetLine) reason() string {
	if l.spent >= l.limit {
		return "budget reached: " + l.used()
	}
	next := units.Dollars(l.next)
	if l.tokens {
		next = tokenCount(l.next) + " tokens"
	}
	return fmt.Sprintf("budget reached: %s, and the next iteration is expected to take about %s (%s)", l.used(), next, l.basis)
}

// hint is what the user can do about a stop for l.
func (l budgetLine) hint() string {
	if l.day != "" {
		return "the run resumes where it stopped with the next 'git ralph loop' once today's spend allows it: tomorrow (local time), or after raising daily_max_cost (--daily-max-cost, RALPH_DAILY_MAX_COST or your config file)"
	}
	flag := strings.ReplaceAll(l.cause, "_", "-")
	return fmt.Sprintf("raise %s (--%s, RALPH_%s or the config) and run 'git ralph loop' again: the run resumes where it stopped; --fresh starts a new run with a budget of its own",
		l.cause, flag, strings.ToUpper(l.cause))
}

// unmetered says at the start of a run with a budget when the preset's output carries
// no usage to enforce it with: the budget would otherwise silently never stop the run.
func unmetered(b Budget, p agentcli.Preset, api *APIAgent, judge string, judgeAPI *APIAgent) []string {
	var warnings []string
	if b.DailyMaxCost > 0 && b.Daily == nil {
		warnings = append(warnings, "budget: daily_max_cost is set, but there is no home or state directory to count the day's spend in, so it cannot stop this run")
	}
	warnings = append(warnings, unmeteredJudge(b, judge, judgeAPI)...)
	if !b.set() || p.Name == "" {
		return warnings
	}
	tokens, cost := p.ReportsUsage()
	if p.InProcess() && api != nil { // git-ralph counts the tokens; the cost needs the model's price
		tokens, cost = true, api.Price != nil
	}
	switch {
	case (b.MaxCost > 0 || b.DailyMaxCost > 0) && !cost && p.InProcess() && api != nil:
		warnings = append(warnings, fmt.Sprintf("budget: the model %s has no price, so its cost is unknown and max_cost and daily_max_cost cannot stop this run; give it one with [prices.%q] in your config", api.Model, api.Model))
	case (b.MaxCost > 0 || b.DailyMaxCost > 0) && !cost:
		warnings = append(warnings, fmt.Sprintf("budget: the %s agent reports no cost, so max_cost and daily_max_cost cannot stop this run", p.Name))
	}
	if b.MaxTokens > 0 && !tokens {
		warnings = append(warnings, fmt.Sprintf("budget: the %s agent reports no token counts, so max_tokens cannot stop this run", p.Name))
	}
	return warnings
}

// unmeteredJudge is unmetered for a judge preset, whose spend counts toward the budgets
// too, but only as far as its output reports it. (A judge command reports its usage, like
// a custom agent, with a ralph_usage line.)
func unmeteredJudge(b Budget, judge string, api *APIAgent) []string {
	j, ok := agentcli.Lookup(judge)
	if !b.set() || !ok {
		return nil
	}
	var warnings []string
	tokens, cost := j.ReportsUsage()
	if j.InProcess() && api != nil {
		cost = api.Price != nil
	}
	if (b.MaxCost > 0 || b.DailyMaxCost > 0) && !cost {
		warnings = append(warnings, fmt.Sprintf("budget: the judge %s reports no cost, so its spend does not count toward max_cost and daily_max_cost", j.Name))
	}
	if b.MaxTokens > 0 && !tokens {
		warnings = append(warnings, fmt.Sprintf("budget: the judge %s reports no token counts, so its spend does not count toward max_tokens", j.Name))
	}
	return warnings
}

// warnNoUsage says, once per run, when a custom command (custom) with a budget ran an
// iteration without reporting its usage (a ralph_usage line): only then is it known.
func (b *budgets) warnNoUsage(st *stateFile, custom bool, u agentcli.Usage) {
	if !b.set() || !custom {
		return
	}
	var missing []string
	if (b.MaxCost > 0 || b.DailyMaxCost > 0) && !u.HasCost {
		missing = append(missing, "no cost_usd (max_cost and daily_max_cost cannot stop this run)")
	}
	if b.MaxTokens > 0 && u.InputTokens+u.OutputTokens == 0 {
		missing = append(missing, "no tokens (max_tokens cannot stop this run)")
	}
	if len(missing) == 0 || st.Warned("no_usage") {
		return
	}
	st.AddWarned("no_usage")
	b.warn("budget: the agent command reported " + strings.Join(missing, " and ") +
		`; a custom agent reports its usage with a line of its own like {"ralph_usage":{"input_tokens":1200,"output_tokens":340,"cost_usd":0.0123}} (see docs/guide/agents.md)`)
}

// tokenCount writes a token figure (kept as a float beside dollar figures) as a count.
func tokenCount(f float64) string { return units.Count(int64(math.Round(f))) }
