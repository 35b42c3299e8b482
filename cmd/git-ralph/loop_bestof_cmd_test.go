package main

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/kongmodel"
)

// parseLoop parses a loop command line the way run does.
func parseLoop(t *testing.T, args ...string) LoopCmd {
	t.Helper()
	var cli CLI
	k, err := parser(&cli, Streams{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Parse(kongmodel.JoinNegativeValues(k, append([]string{"loop"}, args...))); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	return cli.Loop
}

// Every loop flag a best-of is given reaches its candidates as it was given, and none of
// the best-of's own does.
func TestCandidateArgsCarryEveryLoopFlag(t *testing.T) {
	given := []string{"--best-of", "3", "--jobs", "2", "--score", "echo 1", "--worktree", "try",
		"--mode", "plan", "--max", "7", "--unlimited=false", "--agent", "claude", "--agent-cmd", "sh -c 'x --y'",
		"--timeout", "90s", "--max-consecutive-errors", "4", "--max-output-buffer", "2MiB", "--idle-threshold", "0",
		"--validate", "make test", "--until", "make check", "--template", "tdd", "--no-push", "--fresh", "--context=-starts with a dash",
		"-v", "--skip-if-busy", "--base", "HEAD~1", "--", "-fix the tests, a task that starts with a dash"}
	c := parseLoop(t, given...)
	child, err := candidateLoop(&c)
	if err != nil {
		t.Fatal(err)
	}
	args := child.Args()[1:] // after "loop"
	for _, a := range args {
		for own := range bestOfOnly {
			if strings.HasPrefix(a, "--"+own+"=") {
				t.Errorf("the candidates get the best-of's own %s", a)
			}
		}
	}
	again := parseLoop(t, append([]string{"--worktree", "try"}, args...)...)
	c.BestOfFlags = BestOfFlags{}
	if !reflect.DeepEqual(c, again) {
		t.Errorf("the candidates' flags %q parse to\n%+v\nwant\n%+v", args, again, c)
	}
	// nothing given, nothing passed
	if child, err := candidateLoop(&LoopCmd{BestOfFlags: BestOfFlags{Jobs: 2}}); err != nil || len(child.Args()) != 1 {
		t.Errorf("candidateLoop of no flags = %q, %v", child.Args(), err)
	}
}

// --task-file reaches the candidates as an absolute path: they run in the repository
// root, not where the user is.
func TestCandidateArgsMakeTheTaskFileAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	c := parseLoop(t, "--best-of", "2", "--task-file", "task.md")
	child, err := candidateLoop(&c)
	if err != nil {
		t.Fatal(err)
	}
	args := child.Args()[1:]
	if len(args) != 1 || !strings.HasPrefix(args[0], "--task-file=/") || !strings.HasSuffix(args[0], "/task.md") {
		t.Errorf("args = %q", args)
	}
}

// Every field of LoopCmd is a kind of flag candidateLoop can spell: a flag added later
// that it cannot pass fails here rather than at a user's best-of.
func TestCandidateArgsKnowEveryFieldKind(t *testing.T) {
	c := LoopCmd{}
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if v.Type().Field(i).Anonymous {
			continue
		}
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.New(f.Type().Elem()))
			f = f.Elem()
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(1)
		}
	}
	if _, err := candidateLoop(&c); err != nil {
		t.Fatal(err)
	}
}

// --verbose=false, which beats a file's show_agent_output, reaches the candidates as
// it was given, and so do the budgets.
func TestCandidateArgsCarryVerboseOffAndBudgets(t *testing.T) {
	c := parseLoop(t, "--best-of", "2", "--verbose=false", "--max-cost", "5", "--max-tokens", "9000", "--daily-max-cost", "$20")
	child, err := candidateLoop(&c)
	if err != nil {
		t.Fatal(err)
	}
	args := child.Args()[1:]
	again := parseLoop(t, args...)
	c.BestOfFlags = BestOfFlags{}
	if !reflect.DeepEqual(c, again) || again.Verbose.On() || again.Verbose == "" {
		t.Errorf("the candidates' flags %q parse to\n%+v\nwant\n%+v", args, again, c)
	}
}
