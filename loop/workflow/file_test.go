package workflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustParse(t *testing.T, text string) *Workflow {
	t.Helper()
	w, err := Parse("w", []byte(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return w
}

func TestParseStageSettings(t *testing.T) {
	w := mustParse(t, `
description = "d"
jobs = 2
[stages.plan]
task = "write the plan"
mode = "plan"
agent = "claude"
validate = "make check"
until = "test -f plan.md"
judge = "claude"
feedback = "all"
max_iterations = 4
timeout = "30m"
idle_threshold = 0
max_cost = 1.5
gate = "approval"
artifacts = [{ path = "plans/*.plan.md", headings = ["## Overview"] }]
[stages.code]
prompt = "prompts/code.md"
depends_on = ["plan"]
worktree = true
on_failure = "notify-send failed"
[stages.fix]
template = "bugfix"
`)
	p := w.Stage("plan")
	if p.Task != "write the plan" || p.Mode != "plan" || *p.MaxIterations != 4 || p.Timeout.String() != "30m0s" ||
		*p.IdleThreshold != 0 || *p.MaxCost != 1.5 || p.Gate != GateApproval || p.Feedback != "all" || p.Until == "" || p.Judge != "claude" {
		t.Errorf("plan = %+v", p)
	}
	if len(p.Artifacts) != 1 || p.Artifacts[0].Headings[0] != "## Overview" {
		t.Errorf("artifacts = %+v", p.Artifacts)
	}
	c := w.Stage("code")
	if !c.Worktree || c.Prompt != "prompts/code.md" || w.Jobs != 2 {
		t.Errorf("code = %+v, jobs %d", c, w.Jobs)
	}
	if f := w.Stage("fix"); f.Template != "bugfix" {
		t.Errorf("fix = %+v", f)
	}
	if stage, cmd := w.Next(c.OnFailure); stage != "" || cmd != "notify-send failed" {
		t.Errorf("on_failure = stage %q, command %q", stage, cmd)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text, want, hint string
	}{
		{"no stages", `description = "x"`, "w.toml: no stages", "[stages.plan]"},
		{"unknown key", "[stages.a]\ntaks = \"x\"", "w.toml:2: stages.a.taks: unknown key", "did you mean task?"},
		{"unknown top key", "stage = 1\n[stages.a]", "w.toml:1: stage: unknown key", "top-level keys"},
		{"wrong type", "[stages.a]\ndepends_on = \"b\"", "w.toml:2: stages.a.depends_on: want a list of strings", "type of each key"},
		{"syntax", "[stages.a]\ntask = x", "w.toml:2: invalid TOML", "line 2"},
		{"prompt outside", "[stages.a]\nprompt = \"/etc/passwd\"", `stages.a.prompt: "/etc/passwd" is not a path inside the repository`, "relative"},
		{"prompt in .git", "[stages.a]\nprompt = \".git/config\"", `stages.a.prompt: ".git/config" is inside the git directory, not a file of the repository`, "work tree"},
		{"prompt in .GIT", "[stages.a]\nprompt = \"x/../.GIT/config\"", `w.toml:2: stages.a.prompt: "x/../.GIT/config" is inside the git directory`, "credentials"},
		{"artifact in .git", "[stages.a]\nartifacts = [{ path = \".git/*\" }]", `w.toml:2: stages.a.artifacts: ".git/*" is inside the git directory`, "work tree"},
		{"max zero", "[stages.a]\nmax_iterations = 0", "w.toml:2: stages.a.max_iterations: must be at least 1, got 0", "leave it out"},
		{"bad timeout", "[stages.a]\ntimeout = \"soon\"", `stages.a.timeout: "soon" is not a positive duration`, "30m"},
		{"bad feedback", "[stages.a]\nfeedback = \"some\"", `stages.a.feedback: "some" is not last or all`, "all"},
		{"bad gate", "[stages.a]\ngate = \"yes\"", `w.toml:2: stages.a.gate: unknown gate "yes"`, "approval"},
		{"self", "[stages.a]\ndepends_on = [\"a\"]", "stages.a.depends_on: the stage a depends on itself", "remove"},
		{"twice", "[stages.a]\n[stages.b]\ndepends_on = [\"a\", \"a\"]", "stages.b.depends_on: a is listed twice", "once"},
		{"unknown stage", "[stages.plan]\n[stages.code]\ndepends_on = [\"plna\"]", `w.toml:3: stages.code.depends_on: unknown stage "plna"`, "did you mean plan?"},
		{"unknown far", "[stages.plan]\n[stages.code]\ndepends_on = [\"deploy\"]", `unknown stage "deploy"`, "the stages are plan, code"},
		{"misspelt next", "[stages.plan]\non_complete = \"cdoe\"\n[stages.code]", `w.toml:2: stages.plan.on_complete: unknown stage "cdoe"`, "did you mean code?"},
		{"next self", "[stages.plan]\non_failure = \"plan\"", "stages.plan.on_failure: the stage plan names itself", "another stage"},
		{"cycle of two", "[stages.a]\ndepends_on = [\"b\"]\n[stages.b]\ndepends_on = [\"a\"]", "w.toml:2: stages.a.depends_on: a dependency cycle: a → b → a", "remove one link"},
		{"cycle through on_complete", "[stages.a]\ndepends_on = [\"b\"]\n[stages.b]\n[stages.c]\non_complete = \"b\"\ndepends_on = [\"a\"]", "a dependency cycle: a → c → b → a", "cycle"},
		{"handler waits", "[stages.a]\non_failure = \"fix\"\n[stages.b]\n[stages.fix]\ndepends_on = [\"b\"]", "the stage fix runs only when another fails", "on_failure"},
		{"depends on handler", "[stages.a]\non_failure = \"fix\"\n[stages.fix]\n[stages.b]\ndepends_on = [\"fix\"]", "fix runs only when another stage fails", "normal order"},
		{"bad stage name", "[stages.\"Big Stage\"]", `stage name "Big Stage"`, "branch names"},
		{"artifact outside", "[stages.a]\nartifacts = [{ path = \"../x.md\" }]", `"../x.md" is not a path inside the repository`, "relative"},
		{"artifact pattern", "[stages.a]\nartifacts = [{ path = \"[x\" }]", `"[x" is not a valid pattern`, "matches"},
		{"artifact key", "[stages.a]\nartifacts = [{ file = \"x\" }]", "unknown key", "path and headings"},
		{"jobs", "jobs = -1\n[stages.a]", "w.toml:1: jobs: must be 0 or more", "0 runs"},
		{"stages a list", "stages = []", "w.toml:1: stages: want a table of stages, got an array", "type of each key"},
		{"stage a number", "[stages]\na = 1", "w.toml:2: stages.a: want a table, got an integer", "type of each key"},
		{"handler with a gate", "[stages.a]\non_failure = \"fix\"\n[stages.fix]\ngate = \"approval\"", "w.toml:4: stages.fix.gate: the stage fix runs only when another fails (on_failure): no one would be asked to approve it", "normal order (depends_on)"},
		{"task too long", "[stages.a]\ntask = \"" + strings.Repeat("t", 31<<10) + "\"", "w.toml:2: stages.a.task: 31744 bytes, more than 30 KiB", "prompt = FILE"},
		{"validate too long", "[stages.a]\nvalidate = \"" + strings.Repeat("t", 31<<10) + "\"", "w.toml:2: stages.a.validate: 31744 bytes", "a script"},
		{"context too long", "[stages.a]\ncontext = \"" + strings.Repeat("t", 31<<10) + "\"", "w.toml:2: stages.a.context: 31744 bytes, more than 30 KiB", "prompt = FILE"},
		{"bad template", "[stages.a]\ntemplate = \"../x\"", `w.toml:2: stages.a.template: "../x" is not a template name`, "git ralph templates"},
		{"template and prompt", "[stages.a]\nprompt = \"p.md\"\ntemplate = \"tdd\"", "w.toml:3: stages.a.template: a stage with a prompt file cannot have a template too", "keep one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("w", []byte(tc.text))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if !strings.Contains(e.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", e.Error(), tc.want)
			}
			if !strings.Contains(e.Hint(), tc.hint) {
				t.Errorf("hint %q, want it to contain %q", e.Hint(), tc.hint)
			}
		})
	}
}

func TestOrderFollowsNeedsThenTheFile(t *testing.T) {
	w := mustParse(t, `
[stages.code]
depends_on = ["spec"]
[stages.docs]
[stages.spec]
depends_on = ["plan"]
[stages.plan]
on_complete = "spec"
on_failure = "fix"
[stages.fix]
`)
	var got []string
	for _, s := range w.Order() {
		got = append(got, s.Name)
	}
	if want := []string{"docs", "plan", "spec", "code"}; !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v (fix runs only on failure)", got, want)
	}
	if !w.Stage("fix").Handler {
		t.Error("fix is not marked as a handler")
	}
	if got, want := w.Dependents("plan"), []string{"spec", "code"}; !slices.Equal(got, want) {
		t.Errorf("Dependents(plan) = %v, want %v", got, want)
	}
	if got := w.Dependents("docs"); len(got) != 0 {
		t.Errorf("Dependents(docs) = %v, want none", got)
	}
	if got, want := w.Needs(w.Stage("spec")), []string{"plan"}; !slices.Equal(got, want) {
		t.Errorf("Needs(spec) = %v, want %v", got, want)
	}
}

func TestLoadRefusesWhatIsNotARegularFile(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".ralph", "workflows")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(root, "gone"); !errors.Is(err, ErrNoWorkflow) {
		t.Errorf("missing file: %v, want ErrNoWorkflow", err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "out.toml")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(root, "out"); err == nil || !strings.Contains(err.Error(), "outside the repository") {
		t.Errorf("symlink out of the repository: %v", err)
	}
	big := "[stages.a]\ntask = \"" + strings.Repeat("x", 2<<20) + "\"\n"
	if err := os.WriteFile(filepath.Join(dir, "big.toml"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(root, "big"); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("a 2 MiB file: %v", err)
	}
}

func TestManyDefinitionsAreRefusedQuickly(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		b.WriteString("[stages.s" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "]\n")
	}
	if _, err := Parse("w", []byte(b.String())); err == nil {
		t.Error("a file of 20000 tables was accepted")
	}
}

// A chain of stages linked by on_complete made every Needs scan the whole file: 2,400
// stages, well within the size cap, took minutes to order. The count is bounded, and
// the largest workflow allowed orders in a moment.
func TestManyStagesAreRefusedAndTheMostAllowedOrderQuickly(t *testing.T) {
	chain := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "[stages.s%d]\non_complete = \"s%d\"\n", i, i+1)
		}
		fmt.Fprintf(&b, "[stages.s%d]\n", n)
		return b.String()
	}
	_, err := Parse("w", []byte(chain(MaxStages)))
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Error(), fmt.Sprintf("w.toml:%d: stages.s%d: more than %d stages", 2*MaxStages+1, MaxStages, MaxStages)) ||
		!strings.Contains(e.Hint(), "split") {
		t.Fatalf("%d stages: %v", MaxStages+1, err)
	}
	start := cpuTime() // processor time: a busy machine's other processes do not count
	w := mustParse(t, chain(MaxStages-1))
	if got := w.Order(); len(got) != MaxStages || got[MaxStages-1].Name != fmt.Sprintf("s%d", MaxStages-1) {
		t.Errorf("Order() has %d stages", len(got))
	}
	if got := w.Dependents("s0"); len(got) != MaxStages-1 {
		t.Errorf("Dependents(s0) has %d stages", len(got))
	}
	if d := cpuTime() - start; d > 2*time.Second {
		t.Errorf("parsing and ordering %d stages took %v of processor time", MaxStages, d)
	}
}

// A worktree stage is the worktree loop wf-WORKFLOW-STAGE, whose name git-ralph keeps to
// 64 characters: a longer one is refused in the file, not when the stage's loop starts.
func TestWorktreeStageNameFitsALoopName(t *testing.T) {
	long := strings.Repeat("s", 40)
	text := "[stages.plan]\n[stages." + long + "]\nworktree = true\n"
	_, err := Parse(strings.Repeat("w", 30), []byte(text))
	var e *Error
	if !errors.As(err, &e) || e.Line != 3 || e.Field != "stages."+long+".worktree" || !strings.Contains(e.Msg, "64") || !strings.Contains(e.Hint(), "shorter") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Parse("ship", []byte(text)); err != nil {
		t.Errorf("a short workflow name: %v", err)
	}
}

// wf-a-b-c is both the stage c of workflow a-b and the stage b-c of workflow a: the two
// would share one worktree and branch.
func TestWorktreeLoopsOfTwoWorkflowsMustDiffer(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".ralph", "workflows")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "a-b.toml"), []byte("[stages.c]\nworktree = true\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.toml"), []byte("[stages.b-c]\nworktree = true\n[stages.d]\nworktree = true\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.toml"), []byte("not toml"), 0o644)
	w, err := Load(root, "a")
	if err != nil {
		t.Fatal(err)
	}
	err = CheckLoopNames(root, w)
	var e *Error
	if !errors.As(err, &e) || e.Field != "stages.b-c.worktree" || !strings.Contains(e.Msg, "wf-a-b-c") || !strings.Contains(e.Msg, ".ralph/workflows/a-b.toml") {
		t.Fatalf("err = %v", err)
	}
	os.Remove(filepath.Join(dir, "a-b.toml"))
	if err := CheckLoopNames(root, w); err != nil {
		t.Errorf("no other workflow: %v", err)
	}
}
