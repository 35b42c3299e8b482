package workflow

import (
	"errors"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/history"
)

const paramFile = `
[stages.plan]
task = "plan {{ticket}} for {{area}}"

[stages.build]
depends_on = ["plan"]
task = "build {{ticket}}"
context = "in {{area}}"
`

func TestFillSetsTaskAndContext(t *testing.T) {
	w := mustParse(t, paramFile)
	p, err := ParseSet([]string{"ticket=PAY-12", "area=billing, invoices"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Fill(p, nil); err != nil {
		t.Fatal(err)
	}
	if got := w.Stage("plan").Task; got != "plan PAY-12 for billing, invoices" {
		t.Errorf("plan task = %q", got)
	}
	if b := w.Stage("build"); b.Task != "build PAY-12" || b.Context != "in billing, invoices" {
		t.Errorf("build task, context = %q, %q", b.Task, b.Context)
	}
}

func TestFillValueIsLiteral(t *testing.T) {
	w := mustParse(t, paramFile)
	if err := w.Fill(Params{"ticket": "{{area}} $1 \\1", "area": "{{ticket}}"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := w.Stage("plan").Task; got != "plan {{area}} $1 \\1 for {{ticket}}" {
		t.Errorf("plan task = %q, want the values as given", got)
	}
}

func TestFillMissingKey(t *testing.T) {
	w := mustParse(t, paramFile)
	err := w.Fill(Params{"ticket": "PAY-12"}, nil)
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("Fill = %v, want an *Error", err)
	}
	if fe.Line != 3 || fe.Field != "stages.plan.task" || !strings.Contains(fe.Msg, "{{area}}") || !strings.Contains(fe.HintText, "--set area=VALUE") {
		t.Errorf("error = %v (line %d, hint %q)", fe, fe.Line, fe.HintText)
	}
	if w.Stage("plan").Task != "plan {{ticket}} for {{area}}" {
		t.Errorf("a refused fill changed the task: %q", w.Stage("plan").Task)
	}
}

func TestFillMisspeltKey(t *testing.T) {
	w := mustParse(t, paramFile)
	err := w.Fill(Params{"ticket": "PAY-12", "area": "x", "tikcet": "y"}, nil)
	var fe *Error
	if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "{{tikcet}}") || fe.HintText != "did you mean --set ticket=…?" {
		t.Fatalf("Fill = %v (hint %q), want the unused key with a suggestion", err, fe.Hint())
	}
	if !strings.HasPrefix(err.Error(), ".ralph/workflows/w.toml: --set tikcet: ") {
		t.Errorf("error = %q, want the file and the key", err)
	}
}

func TestFillMissingKeyNearAGivenOne(t *testing.T) {
	w := mustParse(t, paramFile)
	err := w.Fill(Params{"ticket": "PAY-12", "aera": "x"}, nil)
	var fe *Error
	if !errors.As(err, &fe) || !strings.Contains(fe.HintText, "--set aera was given: did you mean --set area=VALUE?") {
		t.Fatalf("Fill = %v, want the missing key named with the given one it resembles", err)
	}
}

func TestFillKeyOnlyInPromptFile(t *testing.T) {
	w := mustParse(t, `
[stages.plan]
prompt = "p.md"
`)
	uses := func(s *Stage) []string { return Uses("Plan {{ticket}} now, not {{ {x}} nor {{X}}") }
	err := w.Fill(Params{"ticket": "PAY-12"}, uses)
	var fe *Error
	if !errors.As(err, &fe) || fe.Field != "stages.plan.prompt" || fe.Line != 3 || !strings.Contains(fe.HintText, "task") {
		t.Fatalf("Fill = %v, want the prompt file named, pointing to the task", err)
	}
	if got := Uses("Plan {{ticket}} now, not {{ {x}} nor {{X}} {{ticket}} {{a_1}}"); strings.Join(got, ",") != "ticket,a_1" {
		t.Errorf("Uses = %q", got)
	}
}

func TestFillNoParams(t *testing.T) {
	w := mustParse(t, "[stages.plan]\ntask = \"plan it, {{ not a key }}\"\n")
	if err := w.Fill(nil, nil); err != nil {
		t.Fatalf("Fill of a file without keys: %v", err)
	}
}

func TestFillTooLong(t *testing.T) {
	w := mustParse(t, paramFile)
	err := w.Fill(Params{"ticket": strings.Repeat("x", maxText), "area": "a"}, nil)
	if err == nil || !strings.Contains(err.Error(), "stages.plan.task") {
		t.Fatalf("Fill = %v, want the filled task refused as too long", err)
	}
}

func TestParseSet(t *testing.T) {
	p, err := ParseSet([]string{"a=x=y", "b_2="})
	if err != nil || p["a"] != "x=y" || p["b_2"] != "" {
		t.Fatalf("ParseSet = %v, %v", p, err)
	}
	for _, bad := range [][]string{{"novalue"}, {"Upper=x"}, {"1a=x"}, {"a-b=x"}, {"=x"}, {"a=1", "a=2"}, {strings.Repeat("a", 65) + "=x"}} {
		_, err := ParseSet(bad)
		var fe *Error
		if !errors.As(err, &fe) || fe.Field != "--set" || fe.HintText == "" {
			t.Errorf("ParseSet(%q) = %v, want an error with a hint", bad, err)
		}
	}
}

func TestKeepParams(t *testing.T) {
	w := mustParse(t, paramFile)
	var state history.WorkflowState
	if err := KeepParams(w, &state, Params{"ticket": "A"}); err != nil || state.Params["ticket"] != "A" {
		t.Fatalf("a new run: %v, params %v", err, state.Params)
	}
	state.Stage("plan").Status = history.StageRunning
	if err := KeepParams(w, &state, Params{"ticket": "A"}); err != nil {
		t.Fatalf("resumed with the same values: %v", err)
	}
	err := KeepParams(w, &state, Params{"ticket": "it's B"})
	var fe *Error
	if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "started with --set ticket=A, not --set \"ticket=it's B\"") ||
		!strings.Contains(fe.HintText, "git ralph workflow run w --set ticket=A") || !strings.Contains(fe.HintText, "remove .ralph/workflow-state/w.toml") {
		t.Fatalf("resumed with other values: %v (hint %q)", err, fe.Hint())
	}
	if err := KeepParams(w, &state, Params{"ticket": "it's $B"}); err == nil || !strings.Contains(err.Error(), `not --set 'ticket=it'\''s $B'`) {
		t.Errorf("resumed with a value special to sh: %v, want it in single quotes", err)
	}
	if err := KeepParams(w, &state, nil); err == nil {
		t.Error("resumed without the values: no error")
	}
	if state.Params["ticket"] != "A" {
		t.Errorf("a refused resume changed the recorded values: %v", state.Params)
	}
}

func TestNextStepGivesTheValues(t *testing.T) {
	w := mustParse(t, paramFile)
	state := history.WorkflowState{Params: map[string]string{"ticket": "A", "area": "b c"}}
	if got := NextStep(w, &state); got != "'git ralph workflow run w --set \"area=b c\" --set ticket=A' runs plan next" {
		t.Errorf("NextStep = %q", got)
	}
	if got := NextStep(w, &history.WorkflowState{}); got != "'git ralph workflow run w' runs plan next" {
		t.Errorf("NextStep without values = %q", got)
	}
}
