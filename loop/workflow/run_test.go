package workflow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// fakeStages runs no loop: each stage ends with the code codes gives it (0 by default),
// and the runs are listed in order with the context each got.
type fakeStages struct {
	codes    map[string][]int // the exit codes of a stage's runs, one per run
	runs     []string
	contexts map[string]string
	fresh    map[string]bool
	commands []string
	saves    int
}

func newRunner(t *testing.T, text string, f *fakeStages) (*Runner, *history.WorkflowState) {
	t.Helper()
	w := mustParse(t, text)
	st := &history.WorkflowState{Workflow: "w"}
	f.contexts, f.fresh = map[string]string{}, map[string]bool{}
	r := &Runner{Root: t.TempDir(), Workflow: w, State: st,
		RunStage: func(_ context.Context, run StageRun) (StageResult, error) {
			name := run.Stage.Name
			f.runs = append(f.runs, name)
			f.contexts[name], f.fresh[name] = run.Context, run.Fresh
			code := 0
			if list := f.codes[name]; len(list) > 0 {
				code, f.codes[name] = list[0], list[1:]
			}
			return StageResult{ExitCode: code, Iterations: 1}, nil
		},
		Merge: func(context.Context, *Stage, string) error { return nil },
		Command: func(_ context.Context, s *Stage, key, cmd string, code int) error {
			f.commands = append(f.commands, fmt.Sprintf("%s %s %s %d", s.Name, key, cmd, code))
			return nil
		},
		Save:     func(history.WorkflowState) error { f.saves++; return nil },
		Say:      func(string, ...any) {},
		Awaiting: func(*Stage) {},
		Now:      func() time.Time { return time.Unix(0, 0) },
	}
	return r, st
}

func run(t *testing.T, r *Runner) int {
	t.Helper()
	code, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return code
}

const chain = `
[stages.plan]
gate = "approval"
[stages.spec]
depends_on = ["plan"]
[stages.code]
depends_on = ["spec"]
[stages.docs]
`

func TestGateStopsUntilApproved(t *testing.T) {
	f := &fakeStages{}
	r, st := newRunner(t, chain, f)
	if code := run(t, r); code != ExitAwaiting {
		t.Fatalf("first run: exit %d, want 7", code)
	}
	if !slices.Equal(f.runs, []string{"plan"}) || st.Stage("plan").Status != history.StageAwaiting {
		t.Fatalf("runs %v, plan %s", f.runs, st.Stage("plan").Status)
	}
	if code := run(t, r); code != ExitAwaiting || len(f.runs) != 1 {
		t.Fatalf("unapproved: exit %d, runs %v", code, f.runs)
	}
	if err := Approve(r.Workflow, st, "plan", time.Now()); err != nil {
		t.Fatal(err)
	}
	if code := run(t, r); code != ExitDone {
		t.Fatalf("approved: exit %d", code)
	}
	if want := []string{"plan", "spec", "code", "docs"}; !slices.Equal(f.runs, want) {
		t.Errorf("runs %v, want %v", f.runs, want)
	}
	if err := Approve(r.Workflow, st, "spec", time.Now()); err == nil {
		t.Error("approving a done stage without a gate was accepted")
	}
}

func TestRejectMarksDependentsStaleAndFeedsBack(t *testing.T) {
	f := &fakeStages{}
	r, st := newRunner(t, chain, f)
	run(t, r)
	Approve(r.Workflow, st, "plan", time.Now())
	run(t, r)
	stale, err := Reject(r.Workflow, st, "plan", "say more")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(stale, []string{"spec", "code"}) || st.Stage("docs").Status != history.StageDone {
		t.Fatalf("stale %v, docs %s", stale, st.Stage("docs").Status)
	}
	f.runs = nil
	if code := run(t, r); code != ExitAwaiting || !slices.Equal(f.runs, []string{"plan"}) {
		t.Fatalf("after reject: exit %d, runs %v", code, f.runs)
	}
	if !strings.Contains(f.contexts["plan"], "say more") || !f.fresh["plan"] {
		t.Errorf("plan's rerun: context %q, fresh %v", f.contexts["plan"], f.fresh["plan"])
	}
	Approve(r.Workflow, st, "plan", time.Now())
	run(t, r)
	if want := []string{"plan", "spec", "code"}; !slices.Equal(f.runs, want) {
		t.Errorf("runs %v, want %v: the stale stages run again, docs does not", f.runs, want)
	}
	if st.Stage("plan").Feedback != "" || st.Stage("spec").Runs != 2 {
		t.Errorf("feedback kept %q, spec runs %d", st.Stage("plan").Feedback, st.Stage("spec").Runs)
	}
}

func TestFailureStopsWithTheLoopsCodeAndRunsItsHandler(t *testing.T) {
	f := &fakeStages{codes: map[string][]int{"build": {3}}}
	r, st := newRunner(t, `
[stages.build]
on_failure = "fix"
[stages.ship]
depends_on = ["build"]
[stages.fix]
on_complete = "echo fixed"
`, f)
	if code := run(t, r); code != 3 {
		t.Fatalf("exit %d, want the loop's 3", code)
	}
	if !slices.Equal(f.runs, []string{"build", "fix"}) {
		t.Errorf("runs %v", f.runs)
	}
	if st.Stage("build").Status != history.StageFailed || !strings.Contains(st.Stage("build").Problem, "exit code 3") {
		t.Errorf("build: %+v", st.Stage("build"))
	}
	if !slices.Equal(f.commands, []string{"fix on_complete echo fixed 0"}) {
		t.Errorf("commands %v", f.commands)
	}
	// run again: build runs again with its failure in the prompt, and goes on
	f.runs = nil
	if code := run(t, r); code != ExitDone || !slices.Equal(f.runs, []string{"build", "ship"}) {
		t.Fatalf("second run: exit %d, runs %v", code, f.runs)
	}
	if !strings.Contains(f.contexts["build"], "The last run of this stage failed") {
		t.Errorf("build's context %q", f.contexts["build"])
	}
}

func TestFailureCommandGetsTheCode(t *testing.T) {
	f := &fakeStages{codes: map[string][]int{"a": {2}}}
	r, _ := newRunner(t, "[stages.a]\non_failure = \"notify-send failed\"\n", f)
	if code := run(t, r); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if !slices.Equal(f.commands, []string{"a on_failure notify-send failed 2"}) {
		t.Errorf("commands %v", f.commands)
	}
}

func TestUnfinishedStageStaysRunningAndResumes(t *testing.T) {
	f := &fakeStages{codes: map[string][]int{"a": {130}}}
	r, st := newRunner(t, "[stages.a]\n[stages.b]\ndepends_on = [\"a\"]\n", f)
	if code := run(t, r); code != 130 {
		t.Fatalf("exit %d", code)
	}
	if st.Stage("a").Status != history.StageRunning || st.Stage("a").Runs != 1 {
		t.Fatalf("a: %+v", st.Stage("a"))
	}
	if code := run(t, r); code != 0 {
		t.Fatalf("resumed: exit %d", code)
	}
	if st.Stage("a").Runs != 1 || !slices.Equal(f.runs, []string{"a", "a", "b"}) {
		t.Errorf("a runs %d, runs %v: a resumed, not started again", st.Stage("a").Runs, f.runs)
	}
}

func TestOnCompleteStopEndsTheRunThere(t *testing.T) {
	f := &fakeStages{}
	r, _ := newRunner(t, "[stages.a]\non_complete = \"stop\"\n[stages.b]\ndepends_on = [\"a\"]\n", f)
	if code := run(t, r); code != 0 || !slices.Equal(f.runs, []string{"a"}) {
		t.Fatalf("exit %d, runs %v", code, f.runs)
	}
	run(t, r)
	if !slices.Equal(f.runs, []string{"a", "b"}) {
		t.Errorf("runs %v", f.runs)
	}
}

func TestArtifactsAreChecked(t *testing.T) {
	f := &fakeStages{}
	r, st := newRunner(t, `[stages.plan]
artifacts = [{ path = "plans/*.plan.md", headings = ["## Overview", "## Phases"] }]
`, f)
	if code := run(t, r); code != ExitFailed {
		t.Fatalf("exit %d, want 1", code)
	}
	if p := st.Stage("plan").Problem; p != "the artifact plans/*.plan.md is missing: the stage must leave it" {
		t.Errorf("problem %q", p)
	}
	os.MkdirAll(filepath.Join(r.Root, "plans"), 0o755)
	os.WriteFile(filepath.Join(r.Root, "plans", "001-x.plan.md"), []byte("# Plan\n## Overview\ntext\n"), 0o644)
	run(t, r)
	if p := st.Stage("plan").Problem; p != "the artifact plans/001-x.plan.md lacks the required heading(s): ## Phases" {
		t.Errorf("problem %q", p)
	}
	if !strings.Contains(f.contexts["plan"], "plans/*.plan.md is missing") {
		t.Errorf("the second run's context %q lacks the first's problem", f.contexts["plan"])
	}
	os.WriteFile(filepath.Join(r.Root, "plans", "001-x.plan.md"), []byte("# Plan\n## Overview\n  ## Phases  \n"), 0o644)
	if code := run(t, r); code != 0 || st.Stage("plan").Status != history.StageDone {
		t.Errorf("exit %d, plan %s", code, st.Stage("plan").Status)
	}
}

func TestNextStep(t *testing.T) {
	f := &fakeStages{}
	r, st := newRunner(t, chain, f)
	if got := NextStep(r.Workflow, st); !strings.Contains(got, "runs plan next") {
		t.Errorf("before: %q", got)
	}
	run(t, r)
	if got := NextStep(r.Workflow, st); !strings.Contains(got, "'git ralph approve plan'") {
		t.Errorf("at the gate: %q", got)
	}
}

func TestBusyWorkTreeLeavesTheStageAsItWas(t *testing.T) {
	f := &fakeStages{codes: map[string][]int{"a": {75}}}
	r, st := newRunner(t, "[stages.a]\n", f)
	if code := run(t, r); code != 75 {
		t.Fatalf("exit %d", code)
	}
	if a := st.Stage("a"); a.Status != history.StagePending || a.Runs != 0 {
		t.Errorf("a after a busy start: %+v", a)
	}
	if code := run(t, r); code != 0 || !f.fresh["a"] {
		t.Errorf("next run: exit %d, fresh %v", code, f.fresh["a"])
	}
}

func TestResumeAtTellsWhoseRunTheStateIs(t *testing.T) {
	dir := t.TempDir()
	save := func(run string, active bool, reason history.StopReason) {
		t.Helper()
		if err := history.SaveState(dir, history.State{Run: run, Active: active, StopReason: reason, ExitCode: 2, Iteration: 4}); err != nil {
			t.Fatal(err)
		}
	}
	if fresh, ended := resumeAt(dir, "", ""); !fresh || ended != nil {
		t.Errorf("no state: fresh %v, ended %v", fresh, ended)
	}
	save("old", false, history.StopSuccess)
	if fresh, _ := resumeAt(dir, "old", ""); !fresh {
		t.Error("the run from before the stage was taken for the stage's")
	}
	save("stage", true, history.StopInterrupted)
	if fresh, ended := resumeAt(dir, "old", ""); fresh || ended != nil {
		t.Errorf("the stage's unfinished run: fresh %v, ended %v, want a resume", fresh, ended)
	}
	save("stage", false, history.StopMaxIters)
	if _, ended := resumeAt(dir, "old", ""); ended == nil || ended.ExitCode != 2 || ended.Iterations != 4 || ended.Run != "stage" {
		t.Errorf("the stage's ended run: %+v", ended)
	}
	save("someone-else", false, history.StopSuccess)
	if fresh, ended := resumeAt(dir, "old", "stage"); !fresh || ended != nil {
		t.Errorf("another loop ran since the stage stopped: fresh %v, ended %+v, want a fresh start", fresh, ended)
	}
}

func TestLoopProblemSaysWhyTheLoopStopped(t *testing.T) {
	for _, tc := range []struct {
		res  StageResult
		want string
	}{
		{StageResult{ExitCode: 2, StopReason: "max-iterations"}, "its loop stopped with exit code 2 (max-iterations)"},
		{StageResult{ExitCode: 1}, "its loop stopped with exit code 1 (no reason recorded)"},
		{StageResult{ExitCode: 1, Error: "error: no such template\nhint: see templates"}, "its loop stopped with exit code 1: error: no such template\nhint: see templates"},
		{StageResult{ExitCode: 3, StopReason: "error", Error: "error: x"}, "its loop stopped with exit code 3 (error): error: x"},
	} {
		if got := loopProblem(tc.res); got != tc.want {
			t.Errorf("loopProblem(%+v) = %q, want %q", tc.res, got, tc.want)
		}
	}
}

// A stage that runs again starts over (a worktree stage from the base): a workflow
// killed after it recorded the new start but before the stage's loop began must start
// it over too when it resumes, not go on in the earlier run's worktree.
func TestARerunKilledBeforeItsLoopBeganStillStartsOver(t *testing.T) {
	f := &fakeStages{}
	r, st := newRunner(t, "[stages.a]\nworktree = true\n", f)
	var again []bool
	runStage := r.RunStage
	r.RunStage = func(ctx context.Context, run StageRun) (StageResult, error) {
		again = append(again, run.Again)
		return runStage(ctx, run)
	}
	*st.Stage("a") = history.StageState{Status: history.StageRunning, Runs: 2} // the second start, its loop never began
	if code := run(t, r); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !slices.Equal(again, []bool{true}) || st.Stage("a").Runs != 2 {
		t.Errorf("Again %v, runs %d: want the resumed second start to start over", again, st.Stage("a").Runs)
	}
}

// A worktree stage with a gate is merged once a person approves it, not before: a
// rejected result never reaches the base branch, and the stage's new run starts over
// from a base without it.
func TestGatedWorktreeStageMergesOnlyOnceApproved(t *testing.T) {
	f := &fakeStages{}
	r, st := newRunner(t, "[stages.plan]\nworktree = true\ngate = \"approval\"\n[stages.code]\ndepends_on = [\"plan\"]\n", f)
	var merged []string
	r.Merge = func(_ context.Context, s *Stage, loop string) error {
		merged = append(merged, loop)
		return nil
	}
	if code := run(t, r); code != ExitAwaiting || len(merged) != 0 {
		t.Fatalf("exit %d, merged %v: want 7 and nothing merged before the approval", code, merged)
	}
	if _, err := Reject(r.Workflow, st, "plan", "again"); err != nil {
		t.Fatal(err)
	}
	if code := run(t, r); code != ExitAwaiting || len(merged) != 0 {
		t.Fatalf("after reject: exit %d, merged %v", code, merged)
	}
	if err := Approve(r.Workflow, st, "plan", time.Now()); err != nil {
		t.Fatal(err)
	}
	if code := run(t, r); code != ExitDone || !slices.Equal(merged, []string{"wf-w-plan"}) || !slices.Equal(f.runs, []string{"plan", "plan", "code"}) {
		t.Fatalf("approved: exit %d, merged %v, runs %v", code, merged, f.runs)
	}
	if code := run(t, r); code != ExitDone || len(merged) != 1 {
		t.Errorf("merged again: %v", merged)
	}
}

// The merge of an approved stage that fails fails the stage; its dependents do not run.
func TestApprovedStageWhoseMergeFailsFails(t *testing.T) {
	f := &fakeStages{}
	r, st := newRunner(t, "[stages.plan]\nworktree = true\ngate = \"approval\"\n[stages.code]\ndepends_on = [\"plan\"]\n", f)
	r.Merge = func(context.Context, *Stage, string) error { return fmt.Errorf("conflict in a.txt") }
	run(t, r)
	Approve(r.Workflow, st, "plan", time.Now())
	if code := run(t, r); code != ExitFailed || slices.Contains(f.runs, "code") {
		t.Fatalf("exit %d, runs %v", code, f.runs)
	}
	if ss := st.Stage("plan"); ss.Status != history.StageFailed || !strings.Contains(ss.Problem, "conflict in a.txt") {
		t.Errorf("plan: %+v", ss)
	}
}

// The problem and the feedback reach the stage's loop as one command-line argument, which
// the kernel caps at 128 KiB: a glob matching a thousand files without their headings
// made a problem the next start could not pass, and the stage could never start again.
func TestProblemsAndContextStayWithinAnArgument(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "specs"), 0o755)
	for i := 0; i < 900; i++ {
		os.WriteFile(filepath.Join(root, "specs", fmt.Sprintf("%03d-%s.spec.md", i, strings.Repeat("x", 100))), []byte("# no headings\n"), 0o644)
	}
	s := &Stage{Name: "spec", Artifacts: []Artifact{{Path: "specs/*.spec.md", Headings: []string{"## Parent Plan", "## Overview"}}}}
	problem := CheckArtifacts(root, s)
	if n := strings.Count(problem, "\n") + 1; n > maxProblems+1 || !strings.HasSuffix(problem, fmt.Sprintf("and %d more file(s) with problems", 900-maxProblems)) {
		t.Errorf("%d lines, ending %q", n, problem[max(0, len(problem)-80):])
	}
	r := &Runner{Workflow: &Workflow{Name: "w"}}
	ctx := r.promptContext(&Stage{Name: "spec", Context: strings.Repeat("c", 100<<10)},
		&history.StageState{Status: history.StageFailed, Feedback: strings.Repeat("f", 100<<10), Problem: problem})
	if len(ctx) > maxContext || !strings.Contains(ctx, "[… cut at") {
		t.Errorf("context of %d bytes", len(ctx))
	}
}
