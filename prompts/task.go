package prompts

import (
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/prompts/repofile"
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
	if strings.HasPrefix(e.Source, "template ") {
		return `give the task: git ralph loop "TASK" (or --task-file FILE); a template says how to work, the task what to do`
	}
	return fmt.Sprintf("give the task: git ralph loop \"TASK\" (or --task-file FILE); or replace %s in %s with the work to do", TaskPlaceholder, e.Source)
}

// TaskTooLargeError is a prompt whose placeholders, each replaced by the task, would make
// it larger than a prompt may be: a repository's prompt of many placeholders must not turn
// a task into gigabytes.
type TaskTooLargeError struct {
	Source       string // the prompt file or template with the placeholders
	Placeholders int    // how many it has
	Task         int    // the task's size in bytes
}

func (e *TaskTooLargeError) Error() string {
	return fmt.Sprintf("%s has %d %s placeholders: with the task (%s) in each, the prompt would be larger than %s",
		e.Source, e.Placeholders, TaskPlaceholder, repofile.FormatSize(int64(e.Task)), repofile.FormatSize(repofile.PromptLimit))
}

// Hint says what to do about it.
func (e *TaskTooLargeError) Hint() string {
	return fmt.Sprintf("keep one %s in %s (the task goes in whole at each), or give a shorter task", TaskPlaceholder, e.Source)
}

// placeTask puts task into the prompt: where its sections (the prompt files, as written)
// have TaskPlaceholder, else in a "## Task" section right after them, before the context
// and feedback sections. With no task, a placeholder is an error; so is a prompt that the
// task put in at each placeholder would make larger than repofile.PromptLimit.
func placeTask(sections []Section, task string) ([]Section, error) {
	placed := false
	size := 0
	for i := range sections {
		n := strings.Count(sections[i].Body, TaskPlaceholder)
		if n == 0 {
			size += len(sections[i].Body)
			continue
		}
		if strings.TrimSpace(task) == "" {
			return nil, &NoTaskError{Source: sections[i].Source}
		}
		if size += len(sections[i].Body) + n*(len(strings.TrimSpace(task))-len(TaskPlaceholder)); size > repofile.PromptLimit {
			return nil, &TaskTooLargeError{Source: sections[i].Source, Placeholders: n, Task: len(strings.TrimSpace(task))}
		}
		sections[i].Body = strings.ReplaceAll(sections[i].Body, TaskPlaceholder, strings.TrimSpace(task))
		placed = true
	}
	if placed || strings.TrimSpace(task) == "" {
		return sections, nil
	}
	return append(sections, Section{Title: "Task", Source: "the task", Body: task}), nil
}
