package prompts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTaskGoesWhereThePromptSays(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "PROMPT_build.md"), []byte("Build things.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "PROMPT_fix.md"), []byte("Fix this: {task}\nThen stop.\n"), 0o644)
	tests := []struct {
		name, mode, task, context, want string
	}{
		{"a section after the prompt file, before the context", "build", "fix the failing tests", "be brief",
			"Build things.\n\n## Task\n\nfix the failing tests\n\n## Context\n\nbe brief\n"},
		{"the placeholder", "fix", "the parser", "", "Fix this: the parser\nThen stop.\n"},
		{"no task, no section", "build", "  \n", "", "Build things.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Assemble(Spec{Dir: dir, Mode: tt.mode, Task: tt.task, Context: tt.context})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Text(); got != tt.want {
				t.Errorf("Text() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTaskWithoutPromptFileGetsTheBuiltInFrame(t *testing.T) {
	dir := t.TempDir()
	p, err := Assemble(Spec{Dir: dir, Mode: "build", Task: "make the parser accept tabs"})
	if err != nil {
		t.Fatal(err)
	}
	text := p.Text()
	for _, want := range []string{"fresh\ncontext", "make the parser accept tabs", "<promise>SUCCESS</promise>"} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, TaskPlaceholder) {
		t.Errorf("placeholder left in the prompt:\n%s", text)
	}
	if p.Sections[0].Source != "built-in TASK.md" {
		t.Errorf("source = %q", p.Sections[0].Source)
	}
	// without a task, a missing prompt file is still an error
	var missing *MissingError
	if _, err := Assemble(Spec{Dir: dir, Mode: "build"}); !errors.As(err, &missing) {
		t.Errorf("no task, no file: %v", err)
	}
	// a configured fragment that is missing is an error even with a task
	if _, err := Assemble(Spec{Dir: dir, Mode: "build", Files: []string{"nope.md"}, Task: "x"}); !errors.As(err, &missing) {
		t.Errorf("missing configured fragment with a task: %v", err)
	}
}

func TestPlaceholderWithoutTaskIsRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "PROMPT_fix.md"), []byte("Fix this: {task}\n"), 0o644)
	_, err := Assemble(Spec{Dir: dir, Mode: "fix"})
	var noTask *NoTaskError
	if !errors.As(err, &noTask) || noTask.Source != "PROMPT_fix.md" || !strings.Contains(noTask.Hint(), `git ralph loop "TASK"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestFrameReplacesThePromptFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "PROMPT_build.md"), []byte("Build things.\n"), 0o644)
	p, err := Assemble(Spec{Dir: dir, Mode: "build", Task: "T", Frame: Section{Source: "template tdd", Body: "TDD: {task}\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Text(); got != "TDD: T\n" {
		t.Errorf("Text() = %q", got)
	}
}

// A prompt file is bounded, and so is the task, but not what one makes of the other: a
// repository's prompt of a million placeholders would make a 1 KiB task a gigabyte. The
// assembled prompt stays within the prompt bound, or it is an error.
func TestManyPlaceholdersCannotBlowUpThePrompt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "PROMPT_build.md"), []byte(strings.Repeat("{task}", 20_000)), 0o644)
	task := strings.Repeat("x", 1<<10) // 20,000 copies: 20 MiB, past the 16 MiB of a prompt
	_, err := Assemble(Spec{Dir: dir, Mode: "build", Task: task})
	var big *TaskTooLargeError
	if !errors.As(err, &big) {
		t.Fatalf("err = %v, want a TaskTooLargeError", err)
	}
	if !strings.Contains(err.Error(), "PROMPT_build.md") || !strings.Contains(err.Error(), "20000 {task}") || big.Hint() == "" {
		t.Errorf("error %q (hint %q) does not name the file and the count", err, big.Hint())
	}
	// the same prompt with a short task is fine
	if _, err := Assemble(Spec{Dir: dir, Mode: "build", Task: "fix it"}); err != nil {
		t.Errorf("a short task: %v", err)
	}
	// a task that contains the placeholder is put in once, not expanded again
	os.WriteFile(filepath.Join(dir, "PROMPT_build.md"), []byte("Do: {task}\n"), 0o644)
	p, err := Assemble(Spec{Dir: dir, Mode: "build", Task: "say {task} and {{.Task}}"})
	if err != nil || p.Text() != "Do: say {task} and {{.Task}}\n" {
		t.Errorf("a task with a placeholder: %q, %v", p.Text(), err)
	}
}
