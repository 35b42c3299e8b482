package doctor

import (
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
)

// budgetChecks: the usage limits the user's loops shared, and the day's spend against
// daily_max_cost. Both make a run wait or stop at once, not fail: warnings.
func budgetChecks(in Input) []Result {
	return []Result{sharedLimits(in), todaySpend(in)}
}

func sharedLimits(in Input) Result {
	const name = "limits"
	var held []string
	for _, l := range status.ActiveLimits(in.Now) {
		if in.Preset != "" && l.Agent == in.Preset {
			who := l.Agent
			if l.Account != "" {
				who += " (" + l.Account + ")"
			}
			held = append(held, fmt.Sprintf("%s until %s", display.Printable(who), l.Until.Local().Format("2006-01-02 15:04")))
		}
	}
	if len(held) > 0 {
		return warn(name, "a usage limit another loop met holds: "+strings.Join(held, "; ")+"; a run waits for it (max_limit_wait)",
			"'git ralph status' shows it")
	}
	return ok(name, "no shared usage limit holds the agent")
}

func todaySpend(in Input) Result {
	const name = "spend"
	t := status.ReadToday(in.Now, in.DailyMaxCost)
	switch {
	case t == nil:
		return ok(name, "nothing spent today")
	case t.Problem != "":
		return fail(name, "today's spend cannot be read: "+display.Printable(t.Problem), "'git ralph status' says more")
	case in.DailyMaxCost > 0 && t.CostUSD >= in.DailyMaxCost:
		return warn(name, "today: "+t.Line()+": a run started today stops before its first iteration",
			"raise daily_max_cost, or let the day end (local midnight)")
	}
	return ok(name, "today: "+t.Line())
}
