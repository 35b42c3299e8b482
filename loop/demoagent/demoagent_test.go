package demoagent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gittest"
)

const prompt = "Study specs/ and IMPLEMENTATION_PLAN.md. Do one thing.\n"

const wantPlan = planHeader + `
- [ ] count: print the number of words on standard input (bin/count, tests/test_count.sh)
- [ ] number: print every line of standard input prefixed by its line number and a colon (bin/number, tests/test_number.sh)
- [ ] reverse: print the lines of standard input in reverse order (bin/reverse, tests/test_reverse.sh)
`

func TestMain(m *testing.M) { gittest.Main(m, nil) }

// newRepo returns a repository with one empty commit on main.
func newRepo(t *testing.T) string { return gittest.NewRepo(t) }

// newProject returns a repository with the scaffold committed.
func newProject(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	if err := Scaffold(dir); err != nil {
		t.Fatalf("Scaffold: %v", err)
	}
	if _, err := gitops.CommitAll(t.Context(), dir, "scaffold textkit"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// run runs one iteration of Main and returns its exit code and output lines.
func run(t *testing.T, dir, mode string) (int, []string) {
	t.Helper()
	var out bytes.Buffer
	code := Main(t.Context(), dir, mode, strings.NewReader(prompt), &out)
	return code, strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

func last(lines []string) string { return lines[len(lines)-1] }

func commitCount(t *testing.T, dir string) int {
	t.Helper()
	return strings.Count(gittest.Git(t, dir, "rev-list", "HEAD"), "\n") + 1
}

func TestPlanThenBuildUntilSuccess(t *testing.T) {
	dir := newProject(t)
	start := time.Now()
	code, lines := run(t, dir, "plan")
	if code != exitOK || lines[0] != fmt.Sprintf("read prompt (%d bytes)", len(prompt)) || strings.Contains(strings.Join(lines, "\n"), "<promise>") {
		t.Fatalf("plan: exit %d, output:\n%s", code, strings.Join(lines, "\n"))
	}
	if got := readFile(t, dir, PlanFile); got != wantPlan {
		t.Fatalf("plan file:\n%s\nwant:\n%s", got, wantPlan)
	}
	if got := gittest.Git(t, dir, "log", "-1", "--format=%s"); got != "plan: 3 items from specs, 0 done" {
		t.Errorf("plan commit subject = %q", got)
	}
	for i, feature := range []string{"count", "number", "reverse"} {
		t.Run("build "+feature, func(t *testing.T) { checkBuild(t, dir, feature, i == 2) })
	}
	t.Logf("plan + 3 builds took %v", time.Since(start))
	runProjectTests(t, dir)
	if status := gittest.Git(t, dir, "status", "--porcelain"); status != "" {
		t.Errorf("work tree not clean after build:\n%s", status)
	}
	code, lines = run(t, dir, "plan")
	if code != exitOK || last(lines) != PromiseSuccess {
		t.Errorf("replan of finished project: exit %d, last line %q", code, last(lines))
	}
}

// checkBuild runs one build iteration and checks it added one commit with the feature and its test.
func checkBuild(t *testing.T, dir, feature string, final bool) {
	before := commitCount(t, dir)
	code, lines := run(t, dir, "build")
	output := strings.Join(lines, "\n")
	if code != exitOK {
		t.Fatalf("exit %d, output:\n%s", code, output)
	}
	if got := commitCount(t, dir); got != before+1 {
		t.Errorf("commits: %d -> %d, want one more", before, got)
	}
	changed := gittest.Git(t, dir, "show", "--name-only", "--format=", "HEAD")
	want := strings.Join([]string{PlanFile, "bin/" + feature, "tests/test_" + feature + ".sh"}, "\n")
	if changed != want {
		t.Errorf("files in commit:\n%s\nwant:\n%s", changed, want)
	}
	if mode := gittest.Git(t, dir, "ls-files", "-s", "bin/"+feature); !strings.HasPrefix(mode, "100755 ") {
		t.Errorf("bin/%s is not committed executable: %s", feature, mode)
	}
	if !strings.Contains(output, "PASS tests/test_"+feature+".sh") {
		t.Errorf("no PASS line for the new test in:\n%s", output)
	}
	if !strings.Contains(readFile(t, dir, PlanFile), "- [x] "+feature+":") {
		t.Errorf("%s not checked off in the plan", feature)
	}
	wantSuccess := 0
	if final {
		wantSuccess = 1
	}
	got := strings.Count(output, PromiseSuccess)
	if got != wantSuccess || final && last(lines) != PromiseSuccess {
		t.Errorf("final=%v but SUCCESS printed %d times, last line %q", final, got, last(lines))
	}
}

// runProjectTests runs the tests the agent wrote, the way the project's README says.
func runProjectTests(t *testing.T, dir string) {
	t.Helper()
	tests, _ := filepath.Glob(filepath.Join(dir, "tests", "*.sh"))
	if len(tests) != 3 {
		t.Fatalf("found %d tests, want 3", len(tests))
	}
	for _, test := range tests {
		cmd := exec.Command("sh", filepath.Join("tests", filepath.Base(test)))
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", test, err, out)
		}
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestIterationsThatStop(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T) string
		mode     string
		wantCode int
		wantLast string
		wantLine string
	}{
		{"build without a plan", newProject, "build", exitFailure, PromiseFailure,
			"IMPLEMENTATION_PLAN.md does not exist; run plan mode first so there is something to build"},
		{"unknown mode", newProject, "review", exitUsage,
			`error: the demo agent supports modes plan and build only, not "review"`, ""},
		{"plan without specs", newRepo, "plan", exitFailure, PromiseFailure,
			"found no features (### headings) in specs/*.md; nothing to plan"},
		{"build with a failing test", withBrokenTest, "build", exitFailure, PromiseFailure, "FAIL tests/test_broken.sh (exit 1)"},
		{"build of an unknown feature", withUnknownFeature, "build", exitFailure, PromiseFailure,
			`the demo agent has no script for "shout"; it only knows the textkit features`},
		{"build with every item checked", withFinishedPlan, "build", exitOK, PromiseSuccess,
			"every item in IMPLEMENTATION_PLAN.md is already checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t)
			head, _ := gitops.Git(t.Context(), dir, "rev-parse", "HEAD")
			code, lines := run(t, dir, tt.mode)
			output := strings.Join(lines, "\n")
			if code != tt.wantCode || last(lines) != tt.wantLast {
				t.Errorf("exit %d, last line %q; want exit %d, %q", code, last(lines), tt.wantCode, tt.wantLast)
			}
			if !strings.Contains(output, tt.wantLine) {
				t.Errorf("output lacks %q:\n%s", tt.wantLine, output)
			}
			if after, _ := gitops.Git(t.Context(), dir, "rev-parse", "HEAD"); after != head && tt.mode == "build" {
				t.Errorf("build committed although it stopped: HEAD %s -> %s", head, after)
			}
		})
	}
}

// withBrokenTest is a planned project whose tests/ already holds a failing test.
func withBrokenTest(t *testing.T) string {
	dir := planned(t, newProject(t))
	writeFile(t, dir, "tests/test_broken.sh", "echo broken >&2\nexit 1\n")
	return dir
}

// withUnknownFeature is a planned project whose spec asks for a feature the agent has no script for.
func withUnknownFeature(t *testing.T) string {
	dir := newRepo(t)
	writeFile(t, dir, "specs/shout.md", "# shout\n\n### shout\n\nShout stdin.\n")
	return planned(t, dir)
}

// withFinishedPlan is a project whose plan has every item checked.
func withFinishedPlan(t *testing.T) string {
	dir := planned(t, newProject(t))
	writeFile(t, dir, PlanFile, strings.ReplaceAll(readFile(t, dir, PlanFile), "- [ ]", "- [x]"))
	if _, err := gitops.CommitAll(t.Context(), dir, "check everything"); err != nil {
		t.Fatal(err)
	}
	return dir
}

func planned(t *testing.T, dir string) string {
	t.Helper()
	if code, lines := run(t, dir, "plan"); code != exitOK {
		t.Fatalf("plan: exit %d:\n%s", code, strings.Join(lines, "\n"))
	}
	return dir
}

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunsAreDeterministic(t *testing.T) {
	var outputs, trees [2]string
	for i := range outputs {
		dir := newProject(t)
		for _, mode := range []string{"plan", "build", "build", "build"} {
			_, lines := run(t, dir, mode)
			outputs[i] += strings.Join(lines, "\n") + "\n"
		}
		trees[i] = gittest.Git(t, dir, "rev-parse", "HEAD^{tree}")
	}
	if outputs[0] != outputs[1] {
		t.Errorf("outputs differ:\n%s\n---\n%s", outputs[0], outputs[1])
	}
	if trees[0] != trees[1] {
		t.Errorf("final trees differ: %s vs %s", trees[0], trees[1])
	}
}

func TestScaffoldRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	if err := Scaffold(dir); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dir, "specs/textkit.md"); !strings.Contains(got, "### count") {
		t.Errorf("spec lacks the count feature:\n%s", got)
	}
	if err := Scaffold(dir); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Scaffold: err = %v, want fs.ErrExist", err)
	}
}

// The hierarchy's stages are told apart by the heading their prompt opens with, and
// nothing else in a prompt takes the agent there.
func TestHierarchyStageFromThePrompt(t *testing.T) {
	for prompt, want := range map[string]bool{
		"# Plan stage\n\nYou are one iteration": true,
		"# Code stage\nsteps":                   true,
		"# Build mode\n\nsee # Plan stage here": false,
		"# Plan stage is mentioned":             false,
	} {
		if got := hierarchyStage(prompt) != nil; got != want {
			t.Errorf("hierarchyStage(%q) found = %v, want %v", prompt, got, want)
		}
	}
}
