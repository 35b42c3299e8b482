package prompts

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// JudgeFile is the repository's own judge prompt, which replaces the built-in one: the
// criteria an iteration's work is judged by, and the answer's format.
const JudgeFile = ".ralph/PROMPT_judge.md"

// builtinJudge is the judge prompt when the repository has none. It is not a mode's
// prompt (there is no `--mode judge`), so it lives apart from defaults/.
//
//go:embed judge/PROMPT_judge.md
var builtinJudge string

// JudgeSpec says what goes into a judge's prompt.
type JudgeSpec struct {
	Dir        string // the repository root, where JudgeFile is looked for
	Task       string // what the agent was asked to do
	TaskSource string // where the task came from: "--task", "PROMPT_build.md", …
	Iteration  int
	Validation string // what validation said: "`make test` passed", or "none is configured"
	Diff       string // the iteration's change, already bounded
	DiffNote   string // what the diff lacks, when it was cut or could not be read; "" for none
	// Criteria is the judge prompt as LoadJudge read it when the run started (the agent
	// under judgment must not rewrite it); zero: read it now.
	Criteria Section
}

// LoadJudge reads the repository's judge prompt, or gives the built-in one when it has
// none. The file is read like a prompt file: inside the repository, regular, bounded.
func LoadJudge(dir string) (Section, error) {
	data, err := repofile.ReadIn(dir, JudgeFile, JudgeFile, repofile.PromptLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return Section{Source: "built-in judge prompt", Body: builtinJudge}, nil
	}
	if err != nil {
		return Section{}, readError(err, "the judge prompt")
	}
	if strings.TrimSpace(string(data)) == "" {
		return Section{}, fmt.Errorf("the judge prompt is empty: %s", JudgeFile)
	}
	return Section{Source: JudgeFile, Body: string(data)}, nil
}

// AssembleJudge builds a judge's prompt: the judge prompt (its criteria), then the task,
// then what the iteration produced: validation's word and the diff in a fence.
func AssembleJudge(s JudgeSpec) (Prompt, error) {
	criteria := s.Criteria
	if criteria.Body == "" {
		var err error
		if criteria, err = LoadJudge(s.Dir); err != nil {
			return Prompt{}, err
		}
	}
	p := Prompt{Sections: []Section{criteria, {Title: "Task", Source: s.TaskSource, Body: s.Task}}}
	var b strings.Builder
	fmt.Fprintf(&b, "Validation: %s.\n\nThe change of iteration %d (its commits and uncommitted work, as `git diff`):\n\n", s.Validation, s.Iteration)
	if strings.TrimSpace(s.Diff) == "" {
		b.WriteString("(no change)")
	} else {
		fence := fenceFor(s.Diff)
		fmt.Fprintf(&b, "%sdiff\n%s\n%s", fence, strings.TrimRight(s.Diff, "\n"), fence)
	}
	if s.DiffNote != "" {
		b.WriteString("\n\n" + s.DiffNote)
	}
	p.Sections = append(p.Sections, Section{Title: fmt.Sprintf("What iteration %d produced", s.Iteration), Source: "git ralph", Body: b.String()})
	return p, nil
}

// fenceFor is a run of backticks longer than any in text, so the text cannot close the
// fence early.
func fenceFor(text string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
