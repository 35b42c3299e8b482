package workflow

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/lazyregexp"
	"github.com/git-ralph/git-ralph/prompts/repofile"
	"github.com/pelletier/go-toml/v2"
)

// Dir is where a repository keeps its workflow files, relative to its root.
const Dir = ".ralph/workflows"

// GateApproval is the one gate there is: a person approves the stage's work.
const GateApproval = "approval"

// Stop, as on_complete or on_failure, ends the workflow's run after the stage.
const Stop = "stop"

// Workflow is a parsed, checked workflow file.
type Workflow struct {
	Name        string
	File        string // display path, ".ralph/workflows/NAME.toml"
	Description string
	Jobs        int      // worktree stages run at a time; 0: as many as are ready
	Stages      []*Stage // in the file's order
	lines       map[string]int
	needs       map[string][]string // each stage's Needs, known once the links are checked
}

// MaxStages bounds the stages of one workflow: ordering them takes time in the cube of
// their number, and a workflow needs a handful.
const MaxStages = 100

// Stage is one loop of a workflow and what surrounds it.
type Stage struct {
	Name        string
	Description string
	// The loop's settings; empty or nil ones are left to the repository's configuration.
	Task          string // the inline task (the loop's TASK argument), framed by the prompt file or the mode's
	Prompt        string // a prompt file used instead of the mode's PROMPT_<mode>.md
	Template      string // a loop template (git ralph templates) framing the task
	Mode          string
	Agent         string
	AgentCmd      string
	Validate      string
	Until         string
	Judge         string
	Feedback      string
	Context       string
	MaxIterations *int
	Timeout       time.Duration
	IdleThreshold *int
	MaxCost       *float64

	DependsOn  []string
	OnComplete string // "", "stop", a stage, or a command
	OnFailure  string // "", "stop", a stage, or a command
	Gate       string // "" or "approval"
	Worktree   bool   // run in a worktree of its own and merge through the queue
	Artifacts  []Artifact
	Handler    bool // named by another stage's on_failure: runs only then
}

// Artifact is a file (or a glob of files) a stage must leave, with the headings each
// must contain.
type Artifact struct {
	Path     string   `toml:"path"`
	Headings []string `toml:"headings"`
}

// rawFile and rawStage are the file as TOML has it, before checks.
type rawFile struct {
	Description string               `toml:"description"`
	Jobs        int                  `toml:"jobs"`
	Stages      map[string]*rawStage `toml:"stages"`
}

type rawStage struct {
	Description   string     `toml:"description"`
	Task          string     `toml:"task"`
	Prompt        string     `toml:"prompt"`
	Template      string     `toml:"template"`
	Mode          string     `toml:"mode"`
	Agent         string     `toml:"agent"`
	AgentCmd      string     `toml:"agent_cmd"`
	Validate      string     `toml:"validate"`
	Until         string     `toml:"until"`
	Judge         string     `toml:"judge"`
	Feedback      string     `toml:"feedback"`
	Context       string     `toml:"context"`
	MaxIterations *int       `toml:"max_iterations"`
	Timeout       string     `toml:"timeout"`
	IdleThreshold *int       `toml:"idle_threshold"`
	MaxCost       *float64   `toml:"max_cost"`
	DependsOn     []string   `toml:"depends_on"`
	OnComplete    string     `toml:"on_complete"`
	OnFailure     string     `toml:"on_failure"`
	Gate          string     `toml:"gate"`
	Worktree      bool       `toml:"worktree"`
	Artifacts     []Artifact `toml:"artifacts"`
}

// stageKeys are the keys of a [stages.NAME] table, for suggestions.
var stageKeys = []string{"description", "task", "prompt", "template", "mode", "agent", "agent_cmd", "validate", "until",
	"judge", "feedback", "context", "max_iterations", "timeout", "idle_threshold", "max_cost",
	"depends_on", "on_complete", "on_failure", "gate", "worktree", "artifacts"}

var (
	namePattern = lazyregexp.New(`^[a-z0-9][a-z0-9_-]{0,39}$`)
	modePattern = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)
)

// maxText bounds a stage's texts (its task, context, commands): each reaches its loop as
// one command-line argument, which Linux caps at 128 KiB; the context shares its argument
// with a reviewer's feedback and a failed run's problem, a third each (maxContext).
const maxText = 30 << 10

const textHint = "put a long text in a file inside the repository: a task in a prompt = FILE, a command in a script"

// CheckName refuses a workflow or stage name that cannot be a file name, a branch name
// part and a loop name.
func CheckName(what, name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%s name %q: use lower-case letters, digits, - and _, starting with a letter or digit, at most 40", what, name)
	}
	return nil
}

// FilePath is the display path of the workflow NAME's file.
func FilePath(name string) string { return Dir + "/" + name + ".toml" }

// ErrNoWorkflow is a workflow whose file does not exist.
var ErrNoWorkflow = errors.New("no such workflow")

// Load reads and checks the workflow NAME of the repository at root, as the repository
// wrote it: untrusted, a regular file inside the repository within a size cap.
func Load(root, name string) (*Workflow, error) {
	if err := CheckName("workflow", name); err != nil {
		return nil, &Error{File: FilePath(name), Msg: err.Error(), HintText: "name the file .ralph/workflows/NAME.toml with such a NAME"}
	}
	data, err := repofile.ReadIn(root, FilePath(name), FilePath(name), repofile.ConfigLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{File: FilePath(name), Msg: "no such file", Err: ErrNoWorkflow,
			HintText: "write it (see docs/guide/tasks-templates-workflows.md, Workflows), or scaffold one with 'git ralph init --workflow hierarchy'"}
	}
	if err != nil {
		return nil, err
	}
	return Parse(name, data)
}

// Parse checks the text of a workflow file named name.
func Parse(name string, data []byte) (*Workflow, error) {
	file := FilePath(name)
	lines, order, err := keyLines(data)
	if err != nil {
		return nil, syntaxErrorIn(file, data, err)
	}
	var raw rawFile
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, decodeError(file, data, err)
	}
	w := &Workflow{Name: name, File: file, Description: raw.Description, Jobs: raw.Jobs, lines: lines}
	if raw.Jobs < 0 {
		return nil, w.errAt("jobs", "must be 0 or more, got %d", "0 runs every ready worktree stage at once", raw.Jobs)
	}
	if len(raw.Stages) == 0 {
		return nil, &Error{File: file, Msg: "no stages", HintText: "declare each stage as a table: [stages.plan] with task = \"…\" or prompt = \"FILE\""}
	}
	for _, s := range order {
		if r, ok := raw.Stages[s]; ok && !slices.ContainsFunc(w.Stages, func(x *Stage) bool { return x.Name == s }) {
			if len(w.Stages) == MaxStages {
				return nil, w.errAt("stages."+s, "more than %d stages", "split the work into several workflows, or let one stage's loop do several steps", MaxStages)
			}
			st, err := w.stage(s, r)
			if err != nil {
				return nil, err
			}
			w.Stages = append(w.Stages, st)
		}
	}
	if err := w.checkLinks(); err != nil {
		return nil, err
	}
	w.needs = map[string][]string{}
	for _, s := range w.Stages {
		w.needs[s.Name] = w.Needs(s)
	}
	return w, w.checkCycles()
}

// FieldError is an error at the key field of the file (with its line), found by a check
// outside the file's own, such as whether a file it names is committed.
func (w *Workflow) FieldError(field, msg, hint string) *Error {
	return w.errAt(field, "%s", hint, msg)
}

// Line is the line of the key field ("stages.build.max_cost") in the file; 0 when the
// file does not write it.
func (w *Workflow) Line(field string) int { return w.lines[field] }

// errAt is an error at the key field of the file.
func (w *Workflow) errAt(field, format, hint string, args ...any) *Error {
	line := w.lines[field]
	for p := field; line == 0 && strings.Contains(p, "."); { // a key not written: its table's line
		p = p[:strings.LastIndex(p, ".")]
		line = w.lines[p]
	}
	return &Error{File: w.File, Line: line, Field: field, Msg: fmt.Sprintf(format, args...), HintText: hint}
}

// gitDirHint is the hint for a stage's prompt path into .git.
const gitDirHint = `write the stage's prompt in a file of the work tree, like ".ralph/workflows/ship/plan.md": git's own files (its config can hold a remote's credentials) never go into a prompt`

// stage checks one [stages.NAME] table.
func (w *Workflow) stage(name string, r *rawStage) (*Stage, error) {
	at := func(key string) string { return "stages." + name + "." + key }
	if r == nil {
		r = &rawStage{}
	}
	if err := CheckName("stage", name); err != nil {
		return nil, w.errAt("stages."+name, "%v", "stage names become parts of loop and branch names", err)
	}
	s := &Stage{Name: name, Description: r.Description, Task: r.Task, Prompt: r.Prompt, Template: r.Template, Mode: r.Mode,
		Agent: r.Agent, AgentCmd: r.AgentCmd, Validate: r.Validate, Until: r.Until, Judge: r.Judge,
		Feedback: r.Feedback, Context: r.Context, MaxIterations: r.MaxIterations, IdleThreshold: r.IdleThreshold,
		MaxCost: r.MaxCost, DependsOn: r.DependsOn, OnComplete: r.OnComplete, OnFailure: r.OnFailure,
		Gate: r.Gate, Worktree: r.Worktree, Artifacts: r.Artifacts}
	texts := []struct{ key, v string }{{"task", r.Task}, {"context", r.Context}, {"prompt", r.Prompt}, {"template", r.Template},
		{"mode", r.Mode}, {"agent", r.Agent}, {"agent_cmd", r.AgentCmd}, {"validate", r.Validate}, {"until", r.Until},
		{"judge", r.Judge}, {"on_complete", r.OnComplete}, {"on_failure", r.OnFailure}}
	for _, t := range texts { // in the order of the documentation, so that the first too long is named
		if len(t.v) > maxText {
			return nil, w.errAt(at(t.key), "%d bytes, more than %d KiB", textHint, len(t.v), maxText>>10)
		}
	}
	switch {
	case r.Prompt != "" && !filepath.IsLocal(r.Prompt):
		return nil, w.errAt(at("prompt"), "%q is not a path inside the repository", `write a path relative to the repository root, like ".ralph/workflows/ship/plan.md"`, r.Prompt)
	case r.Prompt != "" && repofile.InGitDir(r.Prompt):
		return nil, w.errAt(at("prompt"), "%q is inside the git directory, not a file of the repository", gitDirHint, r.Prompt)
	case r.Template != "" && !modePattern.MatchString(r.Template):
		return nil, w.errAt(at("template"), "%q is not a template name", "'git ralph templates' lists the templates there are", r.Template)
	case r.Template != "" && r.Prompt != "":
		return nil, w.errAt(at("template"), "a stage with a prompt file cannot have a template too: both are its prompt", "keep one: the template frames the task, the prompt file is the whole prompt")
	case r.Mode != "" && !modePattern.MatchString(r.Mode):
		return nil, w.errAt(at("mode"), "%q is not a mode name", "a mode is plan, build, or NAME with a PROMPT_NAME.md", r.Mode)
	case r.MaxIterations != nil && *r.MaxIterations < 1:
		return nil, w.errAt(at("max_iterations"), "must be at least 1, got %d", "leave it out for the repository's setting", *r.MaxIterations)
	case r.IdleThreshold != nil && *r.IdleThreshold < 0:
		return nil, w.errAt(at("idle_threshold"), "must be 0 or more, got %d", "0 never stops for idleness", *r.IdleThreshold)
	case r.MaxCost != nil && !(*r.MaxCost >= 0):
		return nil, w.errAt(at("max_cost"), "must be 0 or more dollars", "e.g. max_cost = 2.50")
	case r.Feedback != "" && r.Feedback != "last" && r.Feedback != "all":
		return nil, w.errAt(at("feedback"), "%q is not last or all", `feedback = "last" gives the next prompt the last failure, "all" every failure of the run`, r.Feedback)
	case r.Gate != "" && r.Gate != GateApproval:
		return nil, w.errAt(at("gate"), "unknown gate %q", `the gate there is: gate = "approval" (a person approves the stage's work)`, r.Gate)
	}
	if r.Timeout != "" {
		d, err := time.ParseDuration(r.Timeout)
		if err != nil || d <= 0 {
			return nil, w.errAt(at("timeout"), "%q is not a positive duration", `use a duration like "30m"`, r.Timeout)
		}
		s.Timeout = d
	}
	if err := w.checkLoopName(s); err != nil {
		return nil, err
	}
	return s, w.checkArtifacts(s)
}

// checkArtifacts refuses artifact paths outside the repository and bad globs.
func (w *Workflow) checkArtifacts(s *Stage) error {
	field := "stages." + s.Name + ".artifacts"
	for _, a := range s.Artifacts {
		_, err := path.Match(a.Path, "")
		switch {
		case a.Path == "":
			return w.errAt(field, "an artifact without a path", `write artifacts = [{ path = "plans/*.plan.md", headings = ["## Overview"] }]`)
		case !filepath.IsLocal(filepath.FromSlash(a.Path)):
			return w.errAt(field, "%q is not a path inside the repository", "write a path relative to the repository root", a.Path)
		case repofile.InGitDir(a.Path):
			return w.errAt(field, "%q is inside the git directory, not a file of the repository", "name a file the stage writes in the work tree", a.Path)
		case err != nil:
			return w.errAt(field, "%q is not a valid pattern: %v", "* matches within one directory, ? one character, [abc] one of those", a.Path, err)
		case slices.Contains(a.Headings, ""):
			return w.errAt(field, "an empty heading in %q", `write each heading as it appears in the file, like "## Overview"`, a.Path)
		}
	}
	return nil
}

// Stage returns the stage named name, or nil.
func (w *Workflow) Stage(name string) *Stage {
	for _, s := range w.Stages {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Names are the stages' names in the file's order.
func (w *Workflow) Names() []string {
	names := make([]string, len(w.Stages))
	for i, s := range w.Stages {
		names[i] = s.Name
	}
	return names
}

// Next classifies on_complete or on_failure: stop, a stage, or a command ("" for none).
func (w *Workflow) Next(value string) (stage, command string) {
	switch {
	case value == "" || value == Stop:
		return "", ""
	case w.Stage(value) != nil:
		return value, ""
	}
	return "", value
}

// isWord reports whether v is one word (no space): a stage's name, most likely, rather
// than a command.
func isWord(v string) bool { return v != "" && !strings.ContainsAny(v, " \t\n;|&$") }
