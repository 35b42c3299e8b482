package workflow

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/fielderr"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/lazyregexp"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Params are the values of `workflow run --set KEY=VALUE`: each fills {{KEY}} in the
// stages' task and context, so that one workflow file serves many tasks. Only those two
// texts are filled: they are what the stage's agent reads, never a command that runs.
type Params map[string]string

var (
	paramKey   = lazyregexp.New(`^[a-z][a-z0-9_]*$`)
	paramUse   = lazyregexp.New(`\{\{([a-z][a-z0-9_]*)\}\}`)
	setExample = "--set key=value, the key of lower-case letters, digits and _, starting with a letter"
)

// maxParamKey bounds a key: it is a word in a text, not a text.
const maxParamKey = 64

// ParseSet reads the --set flags, each KEY=VALUE; a key given twice is refused, as a
// mistake more likely than a wish for the last.
func ParseSet(list []string) (Params, error) {
	p := Params{}
	for _, kv := range list {
		key, value, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			return nil, &Error{Field: "--set", Msg: fmt.Sprintf("%q has no =", kv), HintText: "write " + setExample}
		case !paramKey.MatchString(key) || len(key) > maxParamKey:
			return nil, &Error{Field: "--set", Msg: fmt.Sprintf("%q is not a key", key), HintText: fmt.Sprintf("write %s, at most %d characters", setExample, maxParamKey)}
		}
		if _, dup := p[key]; dup {
			return nil, &Error{Field: "--set", Msg: key + " is given twice", HintText: "give each key once"}
		}
		p[key] = value
	}
	return p, nil
}

// Uses are the keys a text uses, {{key}}, in order of first use.
func Uses(text string) []string {
	var keys []string
	for _, m := range paramUse.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(keys, m[1]) {
			keys = append(keys, m[1])
		}
	}
	return keys
}

// fill replaces each {{key}} of text by its value, in one pass: a value is text, and a
// {{x}} in it stays as it is.
func fill(text string, p Params) string {
	return paramUse.ReplaceAllStringFunc(text, func(m string) string {
		if v, ok := p[m[2:len(m)-2]]; ok {
			return v
		}
		return m
	})
}

// Fill fills the stages' task and context with p. A key a stage uses and p lacks, and a
// key of p no stage uses, are errors at the stage's line (the first: a misspelt key
// is named with the key it resembles). promptUses, when not nil, gives the keys a stage's
// prompt file has: a prompt file is read by the stage's loop as it is, so a key used only
// there is named as such.
func (w *Workflow) Fill(p Params, promptUses func(*Stage) []string) error {
	used := map[string]bool{}
	for _, s := range w.Stages {
		for _, t := range []struct{ key, text string }{{"task", s.Task}, {"context", s.Context}} {
			for _, k := range Uses(t.text) {
				used[k] = true
				if _, ok := p[k]; !ok {
					return w.missing(s, t.key, k, p)
				}
			}
		}
	}
	given := slices.Sorted(maps.Keys(p))
	for _, k := range given {
		if !used[k] {
			return w.unused(k, slices.Collect(maps.Keys(used)), promptUses)
		}
	}
	for _, s := range w.Stages {
		s.Task, s.Context = fill(s.Task, p), fill(s.Context, p)
		for _, t := range []struct{ key, text string }{{"task", s.Task}, {"context", s.Context}} {
			if len(t.text) > maxText {
				return w.errAt("stages."+s.Name+"."+t.key, "%d bytes once filled by --set, more than %d KiB", textHint, len(t.text), maxText>>10)
			}
		}
	}
	return nil
}

// missing is the error of a key the stage's field uses and p lacks.
func (w *Workflow) missing(s *Stage, field, key string, p Params) *Error {
	hint := fmt.Sprintf("give it: git ralph workflow run %s --set %s=VALUE", w.Name, key)
	if near := fielderr.Suggest(key, slices.Collect(maps.Keys(p))); near != "" {
		hint = fmt.Sprintf("--set %s was given: did you mean --set %s=VALUE?", near, key)
	}
	return w.errAt("stages."+s.Name+"."+field, "uses {{%s}}, which no --set gives", hint, key)
}

// unused is the error of a key given with --set that no stage's task or context uses.
func (w *Workflow) unused(key string, used []string, promptUses func(*Stage) []string) *Error {
	slices.Sort(used)
	if promptUses != nil {
		for _, s := range w.Stages {
			if s.Prompt != "" && slices.Contains(promptUses(s), key) {
				return w.errAt("stages."+s.Name+".prompt", "the prompt file %s has {{%s}}, but a prompt file is not filled by --set: the stage's loop reads it as it is",
					fmt.Sprintf("write {{%s}} in the stage's task (task = \"… {{%s}} …\"), which the prompt file frames", key, key), s.Prompt, key)
			}
		}
	}
	hint := "the keys the stages use: " + strings.Join(used, ", ")
	switch near := fielderr.Suggest(key, used); {
	case near != "":
		hint = "did you mean --set " + near + "=…?"
	case len(used) == 0:
		hint = "no stage's task or context has a {{key}}: leave out --set, or write {{" + key + "}} where the value goes"
	}
	return &Error{File: w.File, Field: "--set " + key, Msg: "no stage's task or context uses {{" + key + "}}", HintText: hint}
}

// KeepParams ties the run in state to p: a run that has started a stage resumes only
// with the values it started with (its done stages built on them; other values are
// another run of the workflow), and one that has not takes p.
func KeepParams(w *Workflow, state *history.WorkflowState, p Params) error {
	started := false
	for _, ss := range state.Stages {
		started = started || ss != nil && ss.Status != history.StagePending
	}
	if !started {
		state.Params = nil
		if len(p) > 0 {
			state.Params = maps.Clone(p)
		}
		return nil
	}
	if maps.Equal(state.Params, p) || len(state.Params) == 0 && len(p) == 0 {
		return nil
	}
	return &Error{File: history.WorkflowDir + "/" + w.Name + ".toml", Field: "params",
		Msg:      "this run of the workflow started with " + setFlags(state.Params) + ", not " + setFlags(p),
		HintText: "go on with the same: " + RunCommand(w, state) + "; or, to start the workflow over with other values, remove " + history.WorkflowDir + "/" + w.Name + ".toml"}
}

// RunCommand is the command that goes on with the run in state: workflow run with the
// --set values the run started with.
func RunCommand(w *Workflow, state *history.WorkflowState) string {
	if len(state.Params) == 0 {
		return "git ralph workflow run " + w.Name
	}
	return "git ralph workflow run " + w.Name + " " + setFlags(state.Params)
}

// setFlags writes p as the --set flags that give it, keys in order, values quoted for sh.
func setFlags(p map[string]string) string {
	if len(p) == 0 {
		return "no --set"
	}
	var b []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		b = append(b, "--set "+shQuote(k+"="+p[k]))
	}
	return strings.Join(b, " ")
}

// shQuote quotes s for sh when it needs it: in double quotes when nothing in it is
// special there (easier to read inside a message's single quotes), else in single quotes.
func shQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("=_-.,/:@+", r))
	}) {
		return s
	}
	if !strings.ContainsAny(s, "\"$`\\!") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PromptUses reads the keys a stage's prompt file in the repository at root has, for
// Fill to name a key used only there; a file it cannot read has none (its loop says why).
func PromptUses(root string) func(*Stage) []string {
	return func(s *Stage) []string {
		data, err := repofile.ReadIn(root, s.Prompt, s.Prompt, repofile.PromptLimit)
		if err != nil {
			return nil
		}
		return Uses(string(data))
	}
}
