package loop

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/history"
)

func TestOutputExcerptKeepsBothEndsOfALongOutput(t *testing.T) {
	out := "BEGIN" + strings.Repeat("é", 3000) + "middle" + strings.Repeat("x", 3000) + "END"
	got := outputExcerpt([]byte(out), int64(len(out)))
	head, tail, cut := strings.Cut(got, "\n[…]\n")
	if !cut || !strings.HasPrefix(head, "BEGIN") || !strings.HasSuffix(tail, "END") || strings.Contains(got, "middle") {
		t.Fatalf("excerpt %q: want the start, a gap, the end, and not the middle", got)
	}
	if n, m := utf8.RuneCountInString(head), utf8.RuneCountInString(tail); n != 500 || m != 500 {
		t.Errorf("excerpt keeps %d and %d characters, want 500 of each end", n, m)
	}
}

func TestOutputExcerptOfAShortOutputIsAllOfIt(t *testing.T) {
	if got := outputExcerpt([]byte("error: not logged in\n"), 21); got != "error: not logged in\n" {
		t.Errorf("excerpt %q, want the whole output", got)
	}
}

func TestOutputExcerptRedactsSecretsAndSaysTheStartWasNotKept(t *testing.T) {
	secret := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	out := "token " + secret + "\n" + strings.Repeat("y", 20000) + "\nlast words " + secret
	got := outputExcerpt([]byte(out), int64(len(out))+100)
	if strings.Contains(got, secret) || strings.Count(got, "REDACTED") != 2 {
		t.Errorf("excerpt %q: want both secrets redacted", got)
	}
	if !strings.HasPrefix(got, "[…]\n") {
		t.Errorf("excerpt %q: want it to open with the gap, the start of the output not being kept", got[:20])
	}
}

// The record of an iteration whose agent failed carries its output's ends; a successful
// one's carries none.
func TestAFailedIterationsRecordCarriesItsOutputsEnds(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "starting up"; i=0; while [ $i -lt 300 ]; do echo "line $i of noise"; i=$((i+1)); done; echo "fatal: the model refused"; [ "$RALPH_ITERATION" = 2 ]`, 2)
	cfg.IdleThreshold = 0
	if _, err := Run(context.Background(), cfg, Deps{}); err != nil {
		t.Fatal(err)
	}
	store, _ := history.OpenStore(dir)
	failed, err := store.Get(1)
	if err != nil {
		t.Fatal(err)
	}
	if failed.Outcome != string(OutcomeFailure) || !strings.HasPrefix(failed.OutputExcerpt, "starting up\n") ||
		!strings.HasSuffix(failed.OutputExcerpt, "fatal: the model refused\n") || !strings.Contains(failed.OutputExcerpt, "\n[…]\n") {
		t.Errorf("iteration 1 (%s): output excerpt %q, want its start and its end", failed.Outcome, failed.OutputExcerpt)
	}
	ok, err := store.Get(2)
	if err != nil {
		t.Fatal(err)
	}
	if ok.Outcome != string(OutcomeSuccess) || ok.OutputExcerpt != "" {
		t.Errorf("iteration 2 (%s): output excerpt %q, want none", ok.Outcome, ok.OutputExcerpt)
	}
}
