package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

func TestValidationFeedbackReachesTheNextPromptAndGatesSuccess(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `cat > prompt-$RALPH_ITERATION.txt
		[ "$RALPH_ITERATION" = 2 ] && touch ok.txt
		echo "<promise>SUCCESS</promise>"`, 5)
	cfg.ValidateCmd = `test -f ok.txt || { echo "ok.txt is missing"; exit 4; }`
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusSuccess || res.Iterations != 2 {
		t.Fatalf("status %s after %d iterations, want success after 2 (SUCCESS refused while validation fails)", res.Status, res.Iterations)
	}
	first := rec.finished()[0]
	if first.Outcome != OutcomeSuccess || first.Record.Validation != "failed: exit code 4" || first.Consecutive != 0 {
		t.Errorf("iteration 1: outcome %s, validation %q, consecutive %d", first.Outcome, first.Record.Validation, first.Consecutive)
	}
	prompt2, _ := os.ReadFile(filepath.Join(dir, "prompt-2.txt"))
	for _, want := range []string{"## Previous iteration", "`test -f ok.txt", "exit code 4", "ok.txt is missing"} {
		if !strings.Contains(string(prompt2), want) {
			t.Errorf("prompt of iteration 2 lacks %q:\n%s", want, prompt2)
		}
	}
	if prompt1, _ := os.ReadFile(filepath.Join(dir, "prompt-1.txt")); strings.Contains(string(prompt1), "Previous iteration") {
		t.Errorf("iteration 1 got feedback it could not have had")
	}
	if rec.finished()[1].Record.Validation != "passed" {
		t.Errorf("iteration 2 validation = %q", rec.finished()[1].Record.Validation)
	}
	log, _ := os.ReadFile(filepath.Join(dir, ".ralph", "history", "1", "validation.log"))
	if !strings.Contains(string(log), "ok.txt is missing") {
		t.Errorf("validation.log = %q", log)
	}
	if st, _ := history.LoadState(dir); st.Feedback != "" {
		t.Errorf("feedback left in the state after a passing validation: %q", st.Feedback)
	}
}

func TestRateLimitRetriesTheSameIteration(t *testing.T) {
	dir := newRepo(t)
	// the first attempt hits a limit with no reset time; the second works
	cfg := config(dir, `n=$(cat attempts 2>/dev/null || echo 0); echo $((n+1)) > attempts
		echo "$RALPH_ITERATION" >> iterations
		if [ "$n" = 0 ]; then echo "Error: Rate limit exceeded. Please try again later." >&2; exit 1; fi`, 1)
	cfg.BackoffBase, cfg.BackoffMax = 10*time.Millisecond, 50*time.Millisecond
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusMaxIters || res.Iterations != 1 || res.Consecutive != 0 {
		t.Fatalf("status %s, %d iterations, %d consecutive errors; want max-iters after 1 clean iteration", res.Status, res.Iterations, res.Consecutive)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "iterations")); string(got) != "1\n1\n" {
		t.Errorf("RALPH_ITERATION per attempt = %q, want the same iteration twice", got)
	}
	f := rec.finished()[0]
	if f.Outcome != OutcomeSuccess || f.Record.RateLimitWaits != 1 {
		t.Errorf("outcome %s with %d limit waits", f.Outcome, f.Record.RateLimitWaits)
	}
	var waits []Waiting
	for _, e := range rec.events {
		if w, ok := e.(Waiting); ok {
			waits = append(waits, w)
		}
	}
	if len(waits) != 1 || waits[0].Kind != "limit" || !strings.Contains(waits[0].Message, "Rate limit exceeded") {
		t.Errorf("Waiting events = %+v", waits)
	}
	if st, _ := history.LoadState(dir); !st.WaitUntil.IsZero() {
		t.Errorf("wait_until left in the state after the wait: %v", st.WaitUntil)
	}
}

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	w := newLimitWaits(Config{BackoffBase: time.Second, BackoffMax: 60 * time.Second}, Deps{}.withDefaults(), &stateFile{}, nil, func(Event) {})
	var got []time.Duration
	for n := range 8 {
		got = append(got, w.backoff(n))
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Fatalf("backoff = %v, want 2^n seconds capped at 60s", got)
		}
	}
}

func TestLimitLongerThanMaxLimitWaitStopsAndIsRemembered(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "You've hit your usage limit. Upgrade to Pro or try again in 3 hours." >&2; exit 1`, 3)
	cfg.MaxLimitWait = time.Hour
	res, err := Run(context.Background(), cfg, Deps{Reporter: &recorder{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusLimited || res.Status.ExitCode() != 4 || !strings.Contains(res.Reason, "max_limit_wait") {
		t.Fatalf("status %s (%q), want limited", res.Status, res.Reason)
	}
	st, _ := history.LoadState(dir)
	if until := time.Until(st.WaitUntil); until < 2*time.Hour || until > 4*time.Hour {
		t.Errorf("wait_until = %v, want about 3 hours from now", st.WaitUntil)
	}
	if st.StopReason.Finished() {
		t.Errorf("a limited run is finished (%s); it should resume", st.StopReason)
	}
	// the next loop (from cron, say) still waits: it stops at once without running the agent
	cfg.AgentCmd = "touch ran"
	res, err = Run(context.Background(), cfg, Deps{Reporter: &recorder{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "ran")); res.Status != StatusLimited || statErr == nil {
		t.Errorf("second loop: status %s, agent ran: %v", res.Status, statErr == nil)
	}
}

func TestResumedLoopWaitsOutASavedLimit(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "Error: Rate limit exceeded" >&2; exit 1`, 3)
	cfg.BackoffBase, cfg.BackoffMax = time.Hour, time.Hour
	cfg.MaxLimitWait = time.Minute
	if res, _ := Run(context.Background(), cfg, Deps{Reporter: &recorder{}}); res.Status != StatusLimited {
		t.Fatalf("status %s, want limited", res.Status)
	}
	st, _ := history.LoadState(dir)
	// as if the hour had nearly passed; a second, not less: on a loaded machine 150 ms
	// were gone before the next loop read the state, and it had nothing left to wait
	until := time.Now().Add(time.Second)
	st.WaitUntil = until
	history.SaveState(dir, st)
	cfg.AgentCmd = "touch ran"
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusMaxIters || time.Now().Before(until) {
		t.Errorf("status %s, ended %v before the saved wait's end; want the saved wait, then the run", res.Status, time.Until(until))
	}
	if w, ok := rec.events[1].(Waiting); !ok || !w.Resumed {
		t.Errorf("second event = %#v, want a resumed Waiting", rec.events[1])
	}
}

func TestCancelDuringALimitWaitStopsTheRun(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "Error: Rate limit exceeded" >&2; exit 1`, 3)
	cfg.BackoffBase, cfg.BackoffMax = time.Hour, time.Hour
	finish := make(chan struct{})
	rec := &waitSignaller{recorder: &recorder{}, waiting: finish}
	done := make(chan Result)
	go func() {
		res, _ := Run(context.Background(), cfg, Deps{Reporter: rec, Finish: finish})
		done <- res
	}()
	select {
	case res := <-done:
		if res.Status != StatusInterrupted || !res.Cancelled || res.Iterations != 0 {
			t.Errorf("status %s, cancelled %v, %d iterations", res.Status, res.Cancelled, res.Iterations)
		}
	case <-time.After(time.Minute): // the wait is hours
		t.Fatal("cancel did not end the wait")
	}
}

// waitSignaller closes waiting when the loop starts to wait, as `git ralph cancel` would.
type waitSignaller struct {
	*recorder
	waiting chan struct{}
}

func (w *waitSignaller) Report(e Event) {
	w.recorder.Report(e)
	if _, ok := e.(Waiting); ok {
		close(w.waiting)
	}
}

func TestInjectedTextIsUsedOnce(t *testing.T) {
	dir := newRepo(t)
	if _, err := history.Inject(dir, "use the v2 API", time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := config(dir, `cat > prompt-$RALPH_ITERATION.txt`, 2)
	if _, err := Run(context.Background(), cfg, Deps{Reporter: &recorder{}}); err != nil {
		t.Fatal(err)
	}
	p1, _ := os.ReadFile(filepath.Join(dir, "prompt-1.txt"))
	p2, _ := os.ReadFile(filepath.Join(dir, "prompt-2.txt"))
	if !strings.Contains(string(p1), "## Context\n\nuse the v2 API") || strings.Contains(string(p2), "v2 API") {
		t.Errorf("prompt 1:\n%s\nprompt 2:\n%s", p1, p2)
	}
}

func TestAutoPush(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	for _, args := range [][]string{{"init", "-q", "--bare", bare}, {"remote", "add", "origin", bare},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "base"}} {
		if _, err := gitops.Git(ctx, dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	branch, _ := gitops.CurrentBranch(ctx, dir)
	commit := `git -c user.name=a -c user.email=a@a commit -q --allow-empty -m "iteration $RALPH_ITERATION"`
	cfg := config(dir, `[ "$RALPH_ITERATION" = 2 ] && exit 0; `+commit, 3)
	cfg.Push = true
	rec := &recorder{}
	if _, err := Run(ctx, cfg, Deps{Reporter: rec}); err != nil {
		t.Fatal(err)
	}
	head, _ := gitops.Git(ctx, dir, "rev-parse", "HEAD")
	if remote, _ := gitops.Git(ctx, bare, "rev-parse", branch); remote != head {
		t.Errorf("remote %s = %s, want HEAD %s", branch, remote, head)
	}
	pushes := []string{}
	for _, f := range rec.finished() {
		pushes = append(pushes, f.Record.Push)
	}
	want := []string{"pushed to origin/" + branch, "", "pushed to origin/" + branch}
	if strings.Join(pushes, "|") != strings.Join(want, "|") {
		t.Errorf("pushes = %q, want %q (no push when HEAD did not move)", pushes, want)
	}

	// a rejected push is a failed iteration, and the commit stays
	if _, err := gitops.Git(ctx, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "diverge"); err != nil {
		t.Fatal(err)
	}
	gitops.Git(ctx, dir, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
	gitops.Git(ctx, dir, "reset", "-q", "--hard", "HEAD~1")
	cfg.AgentCmd, cfg.MaxIterations, cfg.Fresh = commit, 1, true
	rec = &recorder{}
	res, err := Run(ctx, cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	f := rec.finished()[0]
	if f.Outcome != OutcomeFailure || !strings.HasPrefix(f.Record.Push, "failed: ") || !strings.Contains(f.Reason, "rejected") || res.Consecutive != 1 {
		t.Errorf("rejected push: outcome %s, push %q, reason %q, consecutive %d", f.Outcome, f.Record.Push, f.Reason, res.Consecutive)
	}
	if now, _ := gitops.Git(ctx, dir, "rev-parse", "HEAD"); now != f.Record.CommitAfter {
		t.Errorf("the local commit was lost after a rejected push")
	}
}

func TestHaltedIterationKeepsTheInjectedText(t *testing.T) {
	dir := newRepo(t)
	history.Inject(dir, "use the v2 API", time.Now())
	cfg := config(dir, `echo "You've hit your org's monthly usage limit" >&2; exit 1`, 3)
	res, err := Run(context.Background(), cfg, Deps{Reporter: &recorder{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusLimited || res.Iterations != 0 {
		t.Fatalf("status %s after %d iterations, want limited after 0", res.Status, res.Iterations)
	}
	if left, _ := history.Injections(dir); len(left) != 1 {
		t.Errorf("injections left: %d, want the one the halted iteration carried", len(left))
	}
	if st, _ := history.LoadState(dir); st.Iteration != 0 || st.StopReason != history.StopLimited {
		t.Errorf("state: iteration %d, stop reason %q", st.Iteration, st.StopReason)
	}
}
