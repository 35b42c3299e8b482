package loop

import "github.com/git-ralph/git-ralph/prompts"

// Template is a loop template as a run uses it: its name, saved with the run so that a
// resumed run goes on with it, and its prompt (with the task's placeholder).
type Template struct {
	Name   string
	Prompt prompts.Section
}
