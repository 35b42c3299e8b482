package loop

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// OutcomeCrashed is the outcome recorded for an iteration whose loop died while it ran
// (kill -9, a power cut): the next loop writes it, so that the history has no holes.
const OutcomeCrashed Outcome = "crashed"

// recordCrashed gives the iteration that was running when the saved run's loop died a
// record, if it has none: its number was allocated (it has a directory and maybe part of
// its output) but the loop never got to save what happened. What it changed was not
// measured; the commit it left is the one the repository is at now (now).
func recordCrashed(saved history.State, book *logbook, now gitops.Checkpoint, warn func(string)) {
	if !saved.Active {
		return
	}
	store := book.store
	n, err := store.Last()
	if err != nil || n == 0 {
		return
	}
	if _, err := store.Get(n); !errors.Is(err, history.ErrNoRecord) {
		return // recorded, or unreadable: nothing is missing that we could write
	}
	rec := history.Record{Iteration: n, Run: saved.Run, RunIteration: saved.Iteration + 1, Mode: saved.Mode,
		StartedAt: saved.AgentStartedAt, Outcome: string(OutcomeCrashed),
		CommitBefore: saved.LastCommit, CommitAfter: now.Head}
	if _, err := os.Stat(store.OutputPath(n)); err == nil {
		rec.OutputPath = book.relative(store.OutputPath(n))
	}
	if err := store.Save(rec); err != nil {
		warn(fmt.Sprintf("could not record iteration %d, which was running when the last loop died: %v", n, err))
	}
}

// catchUp brings the saved state level with the history when the last loop died after
// recording an iteration but before saving the state that says it is over (the record
// is written first). Without it, the resumed run would run that step again: the agent
// would work and commit twice, and history would hold the step twice. The counters
// follow the record's outcome as the loop would have counted it; the idle count, which
// needs the checkpoints the dead loop held, is left as it was. The feedback the state
// holds is the iteration before the recorded one's: it is filed as such with feedback
// "all" (mode), and is no longer the last (the recorded iteration's own is lost with
// the loop: its record has the results).
func catchUp(saved history.State, store *history.Store, mode string) history.State {
	if !saved.Active || saved.Run == "" {
		return saved
	}
	n, err := store.Last()
	if err != nil || n == 0 {
		return saved
	}
	rec, err := store.Get(n)
	if err != nil || rec.Run != saved.Run || rec.RunIteration <= saved.Iteration {
		return saved
	}
	outcome := Outcome(rec.Outcome)
	if outcome == OutcomeCrashed || !outcome.Counts() {
		return saved
	}
	if mode == FeedbackAll && strings.TrimSpace(saved.Feedback) != "" {
		saved.EarlierFeedback, saved.FeedbackLeftOut = keepEarlier(feedbackEntry(saved.Iteration, saved.Feedback),
			saved.EarlierFeedback, saved.FeedbackLeftOut, FeedbackAllBytes)
	}
	saved.Feedback = ""
	saved.Iteration, saved.LastCommit, saved.LastIterationAt = rec.RunIteration, rec.CommitAfter, rec.EndedAt
	if outcome == OutcomeFailure {
		saved.ConsecutiveErrors++
		saved.ErrorCount++
	} else {
		saved.ConsecutiveErrors = 0
	}
	return saved
}
