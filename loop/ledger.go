package loop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitnotes"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/history/ledger"
)

// NotesRef is the ledger: a git note on the last commit of each iteration that made
// commits, saying which loop iteration made it and what it cost (see history/ledger).
const NotesRef = "refs/notes/ralph"

// notes writes the ledger: a note on each iteration's last commit, pushed after the
// branch. A failure is a warning: the ledger must not stop a loop.
type notes struct {
	dir   string
	swept bool // the leftover scratch refs of the ledger were looked for in this run
	warn  func(string)
}

// note attaches the iteration's ledger entry to its last commit, when it made commits:
// HEAD holds commits that the commit it started from does not (a reset to an older commit
// makes none). It returns the commit noted, or "". A failure is a warning: the ledger
// must not stop a loop.
func (n *notes) note(ctx context.Context, rec history.Record) string {
	before, after := rec.CommitBefore, rec.CommitAfter
	if after == "" || after == before {
		return ""
	}
	made, err := gitops.CountMade(ctx, n.dir, before, after)
	if err != nil || made == 0 {
		return ""
	}
	n.sweep(ctx)
	e := LedgerEntry(rec)
	e.Commits = made
	if err := gitnotes.Append(ctx, n.dir, NotesRef, after, ledger.Format(e)); err != nil {
		n.warn(fmt.Sprintf("iteration %d: its ledger note (%s) on %.7s was not written: %v", rec.RunIteration, NotesRef, after, err))
		return ""
	}
	return after
}

// sweep removes, before the run's first note, the scratch refs of note writers that
// died halfway (gitnotes.RemoveScratch): then, not at the loop's start, which stays
// as quick as it was.
func (n *notes) sweep(ctx context.Context) {
	if n.swept {
		return
	}
	n.swept = true
	if _, err := gitnotes.RemoveScratch(ctx, n.dir); err != nil {
		n.warn(fmt.Sprintf("cannot remove the ledger's leftover scratch refs: %v", err))
	}
}

// LedgerEntry is what the ledger says of an iteration, from its record.
func LedgerEntry(rec history.Record) ledger.Entry {
	e := ledger.Entry{Run: rec.Run, Iteration: rec.RunIteration, Record: rec.Iteration, Mode: rec.Mode,
		Agent: rec.Agent, Model: rec.Model, Started: rec.StartedAt.Truncate(time.Second),
		Duration: time.Duration(rec.DurationMS) * time.Millisecond, Outcome: rec.Outcome,
		Validation: rec.Validation, Input: rec.InputTokens, Output: rec.OutputTokens,
		CacheRead: rec.CacheRead, CacheWrite: rec.CacheWrite, CostUSD: rec.CostUSD, CostReported: rec.CostKnown()}
	if ledger.IsHash(rec.CommitBefore) {
		e.Before = rec.CommitBefore
	}
	if sim := rec.Similarity; sim != nil {
		e.SimilarMessage, e.SimilarValidation, e.Repeats = percentOf(sim.Message), percentOf(sim.Validation), sim.Repeats
	}
	if j := rec.Judge; j != nil {
		e.Judge, e.JudgeTokens, e.JudgeCostUSD = j.Verdict, addTokens(max(0, j.InputTokens), max(0, j.OutputTokens)), j.CostUSD
	}
	return e
}

// push sends the ledger after a push of the branch to target, without force; notes
// the remote got meanwhile from elsewhere are merged first (gitnotes.Push). A failure
// is a warning, not a failed iteration: the branch itself reached the remote, and the
// notes go with the next push.
func (n *notes) push(ctx context.Context, i int, target gitpush.Target) {
	err := gitnotes.Push(ctx, n.dir, target.Remote, NotesRef)
	if err == nil {
		return
	}
	n.warn(fmt.Sprintf("iteration %d: the branch was pushed, but the ledger (%s) was not: %s; the next push sends it, or run 'git ralph ledger --remote %s' (which merges the remote's notes) and 'git push %s %s'",
		i, NotesRef, strings.TrimSpace(err.Error()), target.Remote, target.Remote, NotesRef))
}

// percentOf is a measured percentage, 0 when none was measured.
func percentOf(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
