package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/history"
)

// afterAnIteration makes a promise command hold only once an iteration has run (its record
// directory exists): the tests of what follows an iteration's promise need one that does
// not hold before the first, where a promise that holds ends the run at once.
func afterAnIteration(cmd string) string {
	return `ls .ralph/history 2>/dev/null | grep -q '^[0-9]' || exit 1; ` + cmd
}

// A promise that holds already costs nothing: the run ends done before iteration 1, with
// no agent run, no iteration numbered or counted, and the state saying it finished.
func TestAPromiseThatHoldsAlreadyEndsTheRunWithoutAnIteration(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `touch agent-ran`, 5)
	cfg.Until = `test -e goal`
	if err := os.WriteFile(filepath.Join(dir, "goal"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusSuccess || res.Cause != CauseUntil || res.Iterations != 0 || res.Status.ExitCode() != 0 {
		t.Errorf("status %s (cause %q, exit %d) after %d iterations, want success by the promise after none",
			res.Status, res.Cause, res.Status.ExitCode(), res.Iterations)
	}
	if !strings.Contains(res.Reason, "before iteration 1") {
		t.Errorf("reason %q, want it to say the promise passed before iteration 1", res.Reason)
	}
	if _, err := os.Stat(filepath.Join(dir, "agent-ran")); err == nil {
		t.Error("the agent ran though the promise held already")
	}
	if len(rec.finished()) != 0 {
		t.Errorf("%d iterations reported, want none", len(rec.finished()))
	}
	store, _ := history.OpenStore(dir)
	if last, _ := store.Last(); last != 0 {
		t.Errorf("the history holds iteration %d, want none numbered", last)
	}
	if st, _ := history.LoadState(dir); st.Active || st.StopReason != history.StopSuccess || st.Iteration != 0 {
		t.Errorf("state active %v, stop %q, iteration %d; want stopped as success, none counted", st.Active, st.StopReason, st.Iteration)
	}
}

// A resumed run whose promise holds (the user finished the work meanwhile) ends done at
// once too, without running the iteration it would resume at.
func TestAResumedRunWhosePromiseHoldsEndsAtOnce(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo x >> agent-ran`, 5)
	cfg.Until = `test -e goal`
	finish := make(chan struct{})
	cancelAfterFirst := reporterFunc(func(e Event) {
		if _, ok := e.(IterationStarted); ok {
			close(finish) // 'git ralph cancel' during iteration 1: the run stops after it
		}
	})
	res, err := Run(context.Background(), cfg, Deps{Reporter: cancelAfterFirst, Finish: finish})
	if err != nil || res.Status != StatusInterrupted || res.Iterations != 1 {
		t.Fatalf("first run: status %s after %d iterations (%v), want interrupted after 1", res.Status, res.Iterations, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "goal"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	res, err = Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusSuccess || res.Cause != CauseUntil || res.Iterations != 0 || !strings.Contains(res.Reason, "before iteration 2") {
		t.Errorf("resumed: status %s (cause %q, %q) after %d iterations, want success by the promise before iteration 2",
			res.Status, res.Cause, res.Reason, res.Iterations)
	}
	if started, ok := rec.events[0].(RunStarted); !ok || !started.Resumed {
		t.Errorf("first event %#v, want the run resumed", rec.events[0])
	}
	if out, _ := os.ReadFile(filepath.Join(dir, "agent-ran")); string(out) != "x\n" {
		t.Errorf("the agent ran %d times, want once (in the first run only)", strings.Count(string(out), "x"))
	}
}

// A promise that does not hold yet changes nothing: the first iteration runs as before.
func TestAPromiseThatFailsBeforehandStillRunsTheFirstIteration(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `touch goal`, 5)
	cfg.Until = `test -e goal`
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusSuccess || res.Cause != CauseUntil || res.Iterations != 1 {
		t.Errorf("status %s (cause %q) after %d iterations, want success by the promise after 1", res.Status, res.Cause, res.Iterations)
	}
}

type reporterFunc func(Event)

func (f reporterFunc) Report(e Event) { f(e) }
