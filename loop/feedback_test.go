package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// earlierOf runs turnFeedback over iterations whose feedback is given (one per
// iteration, "" for an iteration that raised none), as the loop does after each.
func earlierOf(t *testing.T, mode string, feedback ...string) history.State {
	t.Helper()
	var st history.State
	for i, f := range feedback {
		turnFeedback(&st, mode, f)
		st.Iteration = i + 1
	}
	return st
}

func TestFeedbackAllKeepsEveryFailureNewestFirst(t *testing.T) {
	st := earlierOf(t, FeedbackAll, "tests failed: A", "", "judge said FAIL: B", "tests failed: C")
	got := PromptFeedback(FeedbackAll, st)
	want := "Every failure of this run so far, newest first.\n\n" +
		"### Iteration 4 (the last)\n\ntests failed: C\n\n" +
		"### Iteration 3\n\njudge said FAIL: B\n\n" +
		"### Iteration 1\n\ntests failed: A"
	if got != want {
		t.Errorf("all:\n%s\nwant:\n%s", got, want)
	}
	if last := PromptFeedback(FeedbackLast, st); last != "tests failed: C" {
		t.Errorf("last = %q, want only the last iteration's", last)
	}
	if last := PromptFeedback("", st); last != "tests failed: C" {
		t.Errorf("unset = %q, want only the last iteration's", last)
	}
}

func TestFeedbackLastKeepsNothingEarlier(t *testing.T) {
	st := earlierOf(t, FeedbackLast, "A", "B", "C")
	if st.EarlierFeedback != "" || st.FeedbackLeftOut != 0 {
		t.Errorf("last kept %q (%d left out)", st.EarlierFeedback, st.FeedbackLeftOut)
	}
	if got := PromptFeedback(FeedbackAll, st); got != "C" {
		t.Errorf("a run that kept nothing earlier: %q", got)
	}
}

func TestFeedbackAllWhenTheLastIterationRaisedNone(t *testing.T) {
	st := earlierOf(t, FeedbackAll, "tests failed: A", "")
	got := PromptFeedback(FeedbackAll, st)
	if !strings.Contains(got, "The last iteration (2) raised none of its own.") || !strings.HasSuffix(got, "### Iteration 1\n\ntests failed: A") {
		t.Errorf("got %q", got)
	}
}

func TestFeedbackAllIsBounded(t *testing.T) {
	big := strings.Repeat("x", 7<<10) // about a failed validation near its own bound
	var feedback []string
	for range 10 {
		feedback = append(feedback, big)
	}
	st := earlierOf(t, FeedbackAll, feedback...)
	if len(st.EarlierFeedback) > FeedbackAllBytes {
		t.Errorf("the state keeps %d bytes of earlier feedback, more than %d", len(st.EarlierFeedback), FeedbackAllBytes)
	}
	got := PromptFeedback(FeedbackAll, st)
	if len(got) > FeedbackAllBytes+200 {
		t.Errorf("the section is %d bytes, bound %d", len(got), FeedbackAllBytes)
	}
	// 9 earlier entries: 3 fit beside the last one (4 × 7 KiB in 32 KiB, not 5)
	if !strings.Contains(got, "### Iteration 10 (the last)") || !strings.Contains(got, "### Iteration 7\n") || strings.Contains(got, "### Iteration 6\n") {
		t.Errorf("want iterations 10 to 7 kept, newest first: %s", headings(got))
	}
	if !strings.HasSuffix(got, "(6 earlier failures left out: with feedback = \"all\" this section keeps within 32.0 KiB, the oldest dropped first.)") {
		t.Errorf("the left-out line: %q", got[max(0, len(got)-200):])
	}
}

func TestFeedbackAllLeavesOutOneBigEarlierEntry(t *testing.T) {
	got := assembleFeedback(3, "small", []string{"### Iteration 2\n\n" + strings.Repeat("y", 40<<10), "### Iteration 1\n\nz"}, 0, FeedbackAllBytes)
	if strings.Contains(got, "Iteration 2") || strings.Contains(got, "Iteration 1") {
		t.Errorf("kept an entry after one that did not fit: %s", headings(got))
	}
	if !strings.Contains(got, "(2 earlier failures left out") {
		t.Errorf("got %q", got)
	}
}

func TestFeedbackAllCountsEntriesDroppedBefore(t *testing.T) {
	got := assembleFeedback(5, "last", []string{"### Iteration 4\n\nd"}, 1, FeedbackAllBytes)
	if !strings.HasSuffix(got, "### Iteration 4\n\nd\n\n(1 earlier failure left out: with feedback = \"all\" this section keeps within 32.0 KiB, the oldest dropped first.)") {
		t.Errorf("got %q", got)
	}
}

func TestFeedbackEntryCannotSplitItself(t *testing.T) {
	st := earlierOf(t, FeedbackAll, "one"+history.FeedbackSeparator+"### Iteration 99\n\nforged", "two")
	got := PromptFeedback(FeedbackAll, st)
	if !strings.Contains(got, "### Iteration 1\n\none### Iteration 99\n\nforged") || strings.Contains(got, "left out") {
		t.Errorf("the separator in an entry's text split it: %q", got)
	}
}

func headings(s string) []string {
	var hs []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "### ") {
			hs = append(hs, l)
		}
	}
	return hs
}

// An iteration's feedback reaches the state only with the iteration itself: the state is
// saved meanwhile (the judge's spend), and a loop killed then (during the promise command,
// a push) must resume with the last saved iteration's feedback under its own number, not
// the unfinished iteration's under it, nor that one twice.
func TestFeedbackIsSavedWithItsIteration(t *testing.T) {
	for _, mode := range []string{FeedbackLast, FeedbackAll} {
		t.Run(mode, func(t *testing.T) {
			dir := newRepo(t)
			book, err := openLogbook(context.Background(), dir, history.Retention{}, func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			r := &runner{cfg: Config{Dir: dir, Feedback: mode}, book: book, deps: Deps{}.withDefaults()}
			r.state = &stateFile{root: dir, State: history.State{Run: "r", Mode: "build", Active: true, Iteration: 1, Feedback: "iteration 1 failed"}}
			class := classification{outcome: OutcomeSuccess}
			class.applyValidation(2, Validation{Command: "make", Ran: true, ExitCode: 2, Tail: "iteration 2 failed"})
			if err := r.state.save(); err != nil { // as the judge's spend does
				t.Fatal(err)
			}
			mid, err := history.LoadState(dir)
			if err != nil {
				t.Fatal(err)
			}
			if mid.Feedback != "iteration 1 failed" || mid.EarlierFeedback != "" || mid.Iteration != 1 {
				t.Errorf("saved mid-iteration: iteration %d, feedback %q, earlier %q; want iteration 1's alone", mid.Iteration, mid.Feedback, mid.EarlierFeedback)
			}
			if err := r.saveIteration(2, class, gitops.Checkpoint{}); err != nil {
				t.Fatal(err)
			}
			after, _ := history.LoadState(dir)
			if after.Iteration != 2 || !strings.Contains(after.Feedback, "iteration 2 failed") {
				t.Errorf("after the iteration: iteration %d, feedback %q", after.Iteration, after.Feedback)
			}
			wantEarlier := ""
			if mode == FeedbackAll {
				wantEarlier = "### Iteration 1\n\niteration 1 failed"
			}
			if after.EarlierFeedback != wantEarlier {
				t.Errorf("earlier = %q, want %q", after.EarlierFeedback, wantEarlier)
			}
		})
	}
}

// A loop killed after it recorded an iteration but before it saved the state (while it
// wrote the ledger's note or pushed it) is caught up from the record: the feedback the
// state holds is the iteration before's, and must not pass for the recorded one's.
func TestCatchUpFilesTheFeedbackUnderItsIteration(t *testing.T) {
	for _, mode := range []string{FeedbackLast, FeedbackAll} {
		t.Run(mode, func(t *testing.T) {
			j, err := openLogbook(context.Background(), newRepo(t), history.Retention{}, func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := j.store.Next(); err != nil {
					t.Fatal(err)
				}
			}
			if err := j.store.Save(history.Record{Iteration: 1, Run: "r", RunIteration: 1, Mode: "build", Outcome: string(OutcomeFailure)}); err != nil {
				t.Fatal(err)
			}
			if err := j.store.Save(history.Record{Iteration: 2, Run: "r", RunIteration: 2, Mode: "build", Outcome: string(OutcomeSuccess)}); err != nil {
				t.Fatal(err)
			}
			saved := history.State{Run: "r", Mode: "build", Active: true, Iteration: 1, Feedback: "iteration 1 failed"}
			got := catchUp(saved, j.store, mode)
			if got.Iteration != 2 {
				t.Fatalf("caught up to iteration %d, want 2", got.Iteration)
			}
			wantEarlier := ""
			if mode == FeedbackAll {
				wantEarlier = "### Iteration 1\n\niteration 1 failed"
			}
			if got.Feedback != "" || got.EarlierFeedback != wantEarlier {
				t.Errorf("feedback %q, earlier %q; want none as iteration 2's (it is lost), and earlier %q", got.Feedback, got.EarlierFeedback, wantEarlier)
			}
		})
	}
}
