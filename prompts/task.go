package prompts

import (
	"fmt"
	"strings"
)

// TaskPlaceholder marks where a prompt (a template's, or a PROMPT_<mode>.md written from
// one) takes the task: `git ralph loop "TASK"` puts the task there. A prompt without it
// gets the task in a "## Task" section after it instead.
const TaskPlaceholder = "{task}"

// taskFrameName is the built-in prompt that frames an inline task when the mode has no
// prompt file of its own.
const taskFrameName = "TASK.md"

// TaskFrame is the built-in prompt for an inline task in a repository without the mode's
// prompt file: written for a fresh-context agent, with TaskPlaceholder where the task goes.
func TaskFrame() string {
	data, _ := defaults.ReadFile("defaults/" + taskFrameName)
	return string(data)
}

// NoTaskError is a prompt with a TaskPlaceholder when no task was given: sent as it is,
// the agent would read "{task}" as its work.
type NoTaskError struct {
	Source string // the prompt file or template that has the placeholder
}

func (e *NoTaskError) Error() string {
	return fmt.Sprintf("%s has a %s placeholder, but no task was given", e.Source, TaskPlaceholder)
}

// Hint says how to give one.
func (e *NoTaskError) Hint() string {
	return fmt.Sprintf("give the task: git ralph loop \"TASK\" (or --task-file FILE); or replace %s in %s with the work to do", TaskPlaceholder, e.Source)
}

// placeTask puts task into the prompt: where its sections (the prompt files, as written)
// have TaskPlaceholder, else in a "## Task" section right after them, before the context
// and feedback sections. With no task, a placeholder is an error.
func placeTask(sections []Section, task string) ([]Section, error) {
	placed := false
	for i := range sections {
		if !strings.Contains(sections[i].Body, TaskPlaceholder) {
			continue
		}
		if strings.TrimSpace(task) == "" {
			return nil, &NoTaskError{Source: sections[i].Source}
		}
		sections[i].Body = strings.ReplaceAll(sections[i].Body, TaskPlaceholder, strings.TrimSpace(task))
		placed = true
	}
	if placed || strings.TrimSpace(task) == "" {
		return sections, nil
	}
	return append(sections, Section{Title: "Task", Source: "the task", Body: task}), nil
}
