package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/history/ledger"
)

func TestLedgerEntry(t *testing.T) {
	started := time.Date(2026, 11, 21, 21, 0, 17, 500_000_000, time.UTC)
	rec := history.Record{Iteration: 14, Run: "r", RunIteration: 2, Mode: "build", StartedAt: started,
		DurationMS: 1500, Outcome: "success", Validation: "passed", Agent: "claude", Model: "m",
		InputTokens: 1, OutputTokens: 2, CacheRead: 3, CacheWrite: 4, CostUSD: 0.5,
		CommitBefore: strings.Repeat("a", 40), CommitAfter: strings.Repeat("b", 40)}
	want := ledger.Entry{Run: "r", Iteration: 2, Record: 14, Mode: "build", Agent: "claude", Model: "m",
		Started: started.Truncate(time.Second), Duration: 1500 * time.Millisecond, Outcome: "success",
		Validation: "passed", Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, CostUSD: 0.5, CostReported: true, Before: rec.CommitBefore}
	if got := LedgerEntry(rec); got != want {
		t.Fatalf("LedgerEntry = %+v\nwant %+v", got, want)
	}
	got, bad := ledger.Parse(ledger.Format(want))
	if len(bad) != 0 || len(got) != 1 || got[0] != want {
		t.Fatalf("the entry does not read back: %+v %v", got, bad)
	}
	msg, val := 93, 100
	rec.Similarity = &history.Similarity{Message: &msg, Validation: &val, Repeats: 3}
	if got := LedgerEntry(rec); got.SimilarMessage != 93 || got.SimilarValidation != 100 || got.Repeats != 3 {
		t.Errorf("the stagnation figures in the note: %+v", got)
	}
	rec.Similarity = nil
	// a record written before cost_reported was kept has its cost above 0 (above); an
	// agent that reported none (codex) and one that reported 0 differ
	rec.CostUSD = 0
	if got := LedgerEntry(rec); got.CostReported {
		t.Errorf("no cost reported, yet the entry says reported: %+v", got)
	}
	rec.CostReported = true
	if got := LedgerEntry(rec); !got.CostReported || !strings.Contains(ledger.Format(got), "\ncost_usd: 0\n") {
		t.Errorf("a reported 0 is not in the note: %q", ledger.Format(got))
	}
	rec.CommitBefore = "" // an unborn branch
	if got := LedgerEntry(rec); got.Before != "" {
		t.Errorf("before = %q", got.Before)
	}
}
