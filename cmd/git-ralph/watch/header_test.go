package watch

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// viewOf draws snap on a width×height terminal, in colour or not.
func viewOf(snap Snapshot, width, height int, color bool) string {
	m := New(nil, Actions{}, color)
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	m.Update(loadedMsg{snap: snap, reset: true})
	return m.View()
}

var now = time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC)

// The header names the loop and what it runs, its iteration against the maximum with a
// bar, the running iteration's time against the mean, and the spend against each budget.
func TestHeaderNamesTheLoop(t *testing.T) {
	snap := Snapshot{Loop: "alpha", Branch: "ralph/alpha", Mode: "build", Task: "template fix-bug",
		Agent: "claude", Model: "sonnet", State: Running, Now: now, Iteration: 3, Max: 10,
		Started: now.Add(-130 * time.Second), Mean: 185 * time.Second,
		Budgets: []Budget{{Name: "max_cost", Used: 1.2, Limit: 5, Text: "$1.20 of $5.00"}}}
	v := viewOf(snap, 100, 24, false)
	for _, want := range []string{
		"[RUNNING] alpha · ralph/alpha · build · template fix-bug · claude sonnet",
		"iteration 3/10 ██████░░░░░░░░░░░░░░ · this one 2m10s, mean 3m05s",
		"spend $1.20 of $5.00 ███░░░░░░░░░",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the header lacks %q:\n%s", want, v)
		}
	}
}

// The state is a badge in its colour (a failed loop's red, a loop that needs review in
// magenta), bracketed and uncoloured under NO_COLOR; waiting counts down to the reset.
func TestHeaderBadge(t *testing.T) {
	for _, c := range []struct {
		state State
		plain string
		ansi  string
	}{
		{Running, "[RUNNING]", "\x1b[1;30;42m RUNNING "},
		{Failed, "[FAILED]", "\x1b[1;30;41m FAILED "},
		{NeedsReview, "[NEEDS-REVIEW]", "\x1b[1;30;45m NEEDS-REVIEW "},
		{Waiting, "[WAITING 4m12s]", "\x1b[1;30;46m WAITING 4m12s "},
	} {
		snap := Snapshot{Loop: "alpha", State: c.state, Now: now, WaitUntil: now.Add(252 * time.Second)}
		if v := viewOf(snap, 80, 24, false); !strings.HasPrefix(v, c.plain+" alpha") || strings.Contains(v, "\x1b") {
			t.Errorf("%s under NO_COLOR: want %q first and no escape code:\n%q", c.state, c.plain, v)
		}
		if v := viewOf(snap, 80, 24, true); !strings.HasPrefix(v, c.ansi) {
			t.Errorf("%s in colour: want %q first:\n%q", c.state, c.ansi, v)
		}
	}
}

// Budgets that do not fit one line go on the next, none cut off at 80 columns.
func TestHeaderBudgetsFit(t *testing.T) {
	snap := Snapshot{Loop: "alpha", State: Running, Now: now, Budgets: []Budget{
		{Used: 1.2, Limit: 5, Text: "$1.20 of $5.00"},
		{Used: 1000, Limit: 4000, Text: "1,000 of 4,000 tokens"},
		{Used: 9.5, Limit: 10, Text: "$9.50 of $10.00 today"}}}
	v := viewOf(snap, 80, 24, false)
	for _, want := range []string{"spend $1.20 of $5.00 ███░░░░░░░░░ · 1,000 of 4,000 tokens ███░░░░░░░░░", "      $9.50 of $10.00 today ███████████░"} {
		if !strings.Contains(v, want) {
			t.Errorf("the budgets lack %q:\n%s", want, v)
		}
	}
	if c := viewOf(snap, 80, 24, true); !strings.Contains(c, "$9.50 of $10.00 today \x1b[31m") {
		t.Errorf("a budget 95%% spent is not red:\n%q", c)
	}
}
