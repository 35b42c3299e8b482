package serve

import (
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
)

// loopCard is one loop of the overview, its figures worked out.
type loopCard struct {
	status.Run
	StateText, IterationText, SpendText string
	AheadText                           string // "3 commits ahead" of its base; "" for no worktree
	// IterationPct and SpendPct fill the meters, 0-100; -1: no meter (no bound)
	IterationPct, SpendPct int
	// Merge is the merge queue's entry when the queue's word is the loop's state
	Merge *history.Merge
}

// cardOf works out the card of run, with its entry of the merge queue, if any.
func cardOf(run status.Run, merges map[string]history.Merge) loopCard {
	c := loopCard{Run: run, StateText: stateText(run), IterationText: status.IterationText(run), SpendText: "-", IterationPct: -1, SpendPct: -1}
	if run.Ahead != nil {
		c.AheadText = display.Plural(*run.Ahead, "commit") + " ahead"
	}
	if run.MaxIterations > 0 {
		c.IterationPct = percent(float64(run.Iteration), float64(run.MaxIterations))
	}
	if run.Spend != nil {
		c.SpendText = run.Spend.Line()
		switch {
		case run.Spend.MaxCost > 0:
			c.SpendPct = percent(run.Spend.SpentUSD, run.Spend.MaxCost)
		case run.Spend.MaxTokens > 0:
			c.SpendPct = percent(float64(run.Spend.SpentTokens), float64(run.Spend.MaxTokens))
		}
	}
	switch run.State {
	case history.MergeQueued, history.MergeMerging, history.MergeNeedsReview, history.MergeMerged:
		if m, ok := merges[run.Name]; ok && m.State == run.State {
			c.Merge = &m
		}
	}
	return c
}

// percent is part of whole, 0-100.
func percent(part, whole float64) int {
	if whole <= 0 || part <= 0 {
		return 0
	}
	return int(min(100, part*100/whole))
}

// tone is the colour class of a loop's state, an iteration's outcome or its validation:
// ok (green), fail (red), warn (amber), pause (violet), live (a dot: something runs now)
// or "" (grey). A word it does not know is grey, shown as it is.
func tone(word string) string {
	switch {
	case word == status.StateRunning || word == status.StateWaiting:
		return "ok live"
	case word == history.MergeMerging || word == history.MergeQueued:
		return "warn live"
	case word == status.StatePaused:
		return "pause"
	case word == "success" || word == "done" || word == "passed" || word == history.MergeMerged || word == status.StateFinished:
		return "ok"
	case word == "failure" || word == "crashed" || word == history.MergeNeedsReview || word == status.StateUnreadable ||
		strings.HasPrefix(word, "failed") || strings.HasPrefix(word, "timed out"):
		return "fail"
	case word == status.StateStopped || word == status.StateInterrupted || word == "interrupted" || word == "halted" || word == status.StateGone:
		return "warn"
	}
	return ""
}

// mergeText says where the merge queue has the loop, in a sentence.
func mergeText(m history.Merge) string {
	base := strings.TrimPrefix(m.BaseBranch, "refs/heads/")
	switch m.State {
	case history.MergeQueued:
		return "queued to merge into " + base
	case history.MergeMerging:
		if m.Phase != "" {
			return "merging into " + base + " (" + m.Phase + ")"
		}
		return "merging into " + base
	case history.MergeNeedsReview:
		return "needs review: " + display.Printable(m.Problem) + "; " + base + " was left alone"
	case history.MergeMerged:
		return "merged into " + base
	}
	return m.State
}
