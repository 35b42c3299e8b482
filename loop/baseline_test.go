package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/testreport"
)

// goCache is the user's build cache, read before TestMain gives the tests a HOME of
// their own: the real `go test` the validation runs then needs no cold build.
var goCache = func() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	dir, _ := os.UserCacheDir()
	return filepath.Join(dir, "go-build")
}()

// goModule writes a real Go module into dir: TestOld fails and always will (it failed
// before the run, and is not the task), TestTarget fails until target.txt says "done".
func goModule(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"m_test.go": `package m

import (
	"os"
	"strings"
	"testing"
)

func TestOld(t *testing.T) { t.Fatal("broken before this run") }

func TestGood(t *testing.T) {
	if _, err := os.Stat("broken.txt"); err == nil {
		t.Fatal("broken by the agent")
	}
}

func TestTarget(t *testing.T) {
	b, _ := os.ReadFile("target.txt")
	if strings.TrimSpace(string(b)) != "done" {
		t.Fatal("target not done")
	}
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func goTestConfig(dir, agent string) Config {
	cfg := config(dir, agent, 4)
	cfg.ValidateCmd = "GOCACHE='" + goCache + "' GOFLAGS= GOWORK=off GOTOOLCHAIN=local go test -count=1 -json ./..."
	cfg.ValidateFormat, cfg.ValidateTargets = testreport.GoTestJSON, []string{"TestTarget"}
	return cfg
}

func baselineOf(t *testing.T, rec *recorder) BaselineTaken {
	t.Helper()
	for _, e := range rec.events {
		if b, ok := e.(BaselineTaken); ok {
			return b
		}
	}
	t.Fatal("no baseline was taken")
	return BaselineTaken{}
}

// A test failing before the run does not fail an iteration: the run is done when the
// agent makes the target pass, with TestOld still failing, and the prompt tells the
// agent which failures are its own and which predate the run.
func TestBaselineDoesNotBlameTheAgentForOldFailures(t *testing.T) {
	dir := newRepo(t)
	goModule(t, dir)
	cfg := goTestConfig(dir, `cat > prompt-$RALPH_ITERATION.txt
		[ "$RALPH_ITERATION" = 2 ] && echo done > target.txt
		echo "<promise>SUCCESS</promise>"`)
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	base := baselineOf(t, rec)
	if base.Kept || base.Tests != 3 || len(base.Failing) != 2 || base.Failing[0].Name != "TestOld" || base.Failing[1].Name != "TestTarget" {
		t.Errorf("baseline: %+v, want 4 tests read, TestOld and TestTarget failing", base)
	}
	if res.Status != StatusSuccess || res.Iterations != 2 {
		t.Fatalf("status %s after %d iterations, want success after 2", res.Status, res.Iterations)
	}
	first, second := rec.finished()[0].Record, rec.finished()[1].Record
	if first.Validation != "failed: target TestTarget did not pass" || first.NewFailures != "" || !strings.Contains(first.OldFailures, "TestOld (example.com/m)") {
		t.Errorf("iteration 1: validation %q, new %q, old %q", first.Validation, first.NewFailures, first.OldFailures)
	}
	if second.Validation != "passed" || second.OldFailures != "TestOld (example.com/m)" {
		t.Errorf("iteration 2: validation %q, old failures %q", second.Validation, second.OldFailures)
	}
	prompt2, _ := os.ReadFile(filepath.Join(dir, "prompt-2.txt"))
	for _, want := range []string{"The target tests that must pass did not: TestTarget", "Already failing before this run", "TestOld (example.com/m)"} {
		if !strings.Contains(string(prompt2), want) {
			t.Errorf("prompt of iteration 2 lacks %q:\n%s", want, prompt2)
		}
	}
	if log, _ := os.ReadFile(filepath.Join(dir, BaselineLog)); !strings.Contains(string(log), `"Test":"TestOld"`) {
		t.Errorf("the baseline's output was not saved: %q", log)
	}
}

// A test that passed before the run and fails now is the agent's: validation fails
// naming it, even though the exit code is what it was at the baseline.
func TestBaselineBlamesNewFailures(t *testing.T) {
	dir := newRepo(t)
	goModule(t, dir)
	cfg := goTestConfig(dir, `echo done > target.txt; touch broken.txt; echo "<promise>SUCCESS</promise>"`)
	cfg.MaxIterations = 1
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	r := rec.finished()[0].Record
	if res.Status != StatusMaxIters || r.Validation != "failed: 1 test failing that did not fail before this run" ||
		r.NewFailures != "TestGood (example.com/m)" || r.OldFailures != "TestOld (example.com/m)" {
		t.Errorf("status %s, validation %q, new %q, old %q", res.Status, r.Validation, r.NewFailures, r.OldFailures)
	}
	st, _ := history.LoadState(dir)
	if !strings.Contains(st.Feedback, "Failing now and not before this run (fix these first): TestGood (example.com/m)") {
		t.Errorf("feedback: %q", st.Feedback)
	}
}

// finishAfter asks the loop to stop after the iteration under way (git ralph cancel)
// as soon as one starts: the run stops unfinished, and the next loop resumes it.
type finishAfter struct {
	recorder
	finish chan struct{}
}

func (f *finishAfter) Report(e Event) {
	f.recorder.Report(e)
	if _, ok := e.(IterationStarted); ok && f.finish != nil {
		close(f.finish)
		f.finish = nil
	}
}

// A resumed run keeps the baseline its state holds instead of running the command
// again; without a format no baseline is taken at all.
func TestBaselineIsKeptOnResumeAndTakenOnlyWithAFormat(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, "true", 3)
	cfg.ValidateCmd = `echo run >> validations.txt; printf '1..2\nok 1 - parses\nnot ok 2 - old\n'; exit 1`
	cfg.ValidateFormat = testreport.TAP
	finish := make(chan struct{})
	rec := &finishAfter{finish: finish}
	if res, err := Run(context.Background(), cfg, Deps{Reporter: rec, Finish: finish}); err != nil || res.Status != StatusInterrupted {
		t.Fatalf("%s, %v", res.Status, err)
	}
	if base := baselineOf(t, &rec.recorder); base.Kept || base.Tests != 2 || base.ExitCode != 1 || rec.finished()[0].Record.Validation != "passed" {
		t.Errorf("baseline %+v, validation %q", base, rec.finished()[0].Record.Validation)
	}
	again := &recorder{}
	if _, err := Run(context.Background(), cfg, Deps{Reporter: again}); err != nil {
		t.Fatal(err)
	}
	if base := baselineOf(t, again); !base.Kept || base.Tests != 2 || len(base.Failing) != 1 || base.Failing[0].Name != "old" {
		t.Errorf("resumed: %+v, want the kept baseline", base)
	}
	if runs, _ := os.ReadFile(filepath.Join(dir, "validations.txt")); string(runs) != "run\nrun\nrun\nrun\n" {
		t.Errorf("the validate command ran %q: want the baseline once and once per iteration (3)", runs)
	}

	cfg.ValidateFormat, cfg.Fresh = testreport.None, true
	os.Remove(filepath.Join(dir, "validations.txt"))
	none := &recorder{}
	if _, err := Run(context.Background(), cfg, Deps{Reporter: none}); err != nil {
		t.Fatal(err)
	}
	for _, e := range none.events {
		if _, ok := e.(BaselineTaken); ok {
			t.Error("a baseline was taken without a format")
		}
	}
	if runs, _ := os.ReadFile(filepath.Join(dir, "validations.txt")); string(runs) != "run\nrun\nrun\n" || none.finished()[0].Record.Validation != "failed: exit code 1" {
		t.Errorf("without a format: ran %q, validation %q", runs, none.finished()[0].Record.Validation)
	}
}

// A worktree loop whose branch takes in new commits of its base is judged against the
// base's tests: a test the base broke meanwhile is not the agent's. The baseline is taken
// again, of the base alone, in a temporary worktree.
func TestBaselineFollowsTheBase(t *testing.T) {
	dir := newRepo(t)
	check := `test -f base-broke.txt && echo "not ok 1 - x" || echo "ok 1 - x"
test -f agent-broke.txt && echo "not ok 2 - y" || echo "ok 2 - y"
echo 1..2`
	if err := os.WriteFile(filepath.Join(dir, "check.sh"), []byte(check), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) { gittest.Git(t, dir, args...) }
	git("add", "-A")
	git("commit", "-qm", "base")
	base := strings.TrimSpace(gittest.Git(t, dir, "symbolic-ref", "HEAD"))
	git("branch", "work")
	os.WriteFile(filepath.Join(dir, "base-broke.txt"), nil, 0o644)
	git("add", "-A")
	git("commit", "-qm", "the base breaks x")
	git("checkout", "-q", "work")
	cfg := config(dir, `[ "$RALPH_ITERATION" = 1 ] && git merge -q --no-edit "$BASE"; [ "$RALPH_ITERATION" = 2 ] && touch agent-broke.txt; true`, 2)
	cfg.ValidateCmd, cfg.ValidateFormat, cfg.BaseBranch = "sh check.sh", testreport.TAP, base
	t.Setenv("BASE", base)
	rec := &recorder{}
	if _, err := Run(context.Background(), cfg, Deps{Reporter: rec}); err != nil {
		t.Fatal(err)
	}
	var moved []BaselineTaken
	for _, e := range rec.events {
		if b, ok := e.(BaselineTaken); ok && b.Moved {
			moved = append(moved, b)
		}
	}
	if len(moved) != 1 || len(moved[0].Failing) != 1 || moved[0].Failing[0].Name != "x" {
		t.Fatalf("baselines taken again: %+v, want one, with x failing", moved)
	}
	first, second := rec.finished()[0].Record, rec.finished()[1].Record
	if first.Validation != "passed" || first.OldFailures != "x" {
		t.Errorf("iteration 1 (took in the base): validation %q, old failures %q", first.Validation, first.OldFailures)
	}
	if second.Validation == "passed" || second.NewFailures != "y" {
		t.Errorf("iteration 2 (broke y): validation %q, new failures %q", second.Validation, second.NewFailures)
	}
	if out := gittest.Git(t, dir, "worktree", "list"); strings.Contains(out, "ralph-baseline-") {
		t.Errorf("the temporary worktree was left: %s", out)
	}
}

// A state file the repository committed does not hand a run its baseline: its list of
// tests failing "before the run" would excuse any failure. The baseline is taken again.
func TestCommittedStateDoesNotHandOverABaseline(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, "true", 3)
	cfg.ValidateCmd = `echo run >> validations.txt; printf '1..1\nnot ok 1 - x\n'`
	cfg.ValidateFormat = testreport.TAP
	finish := make(chan struct{})
	if _, err := Run(context.Background(), cfg, Deps{Reporter: &finishAfter{finish: finish}, Finish: finish}); err != nil {
		t.Fatal(err)
	}
	st, err := history.LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.BaselineFailing = "\ty\n" // what a hostile repository would commit: y "failed before"
	if err := history.SaveState(dir, st); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "-f", ".ralph/state.toml")
	rec := &recorder{}
	if _, err := Run(context.Background(), cfg, Deps{Reporter: rec}); err != nil {
		t.Fatal(err)
	}
	if base := baselineOf(t, rec); base.Kept || len(base.Failing) != 1 || base.Failing[0].Name != "x" {
		t.Errorf("baseline %+v: want one taken again, not the committed one", base)
	}
}
