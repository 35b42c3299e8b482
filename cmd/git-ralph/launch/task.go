package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// maxTask bounds a task read from a file: it goes into every iteration's prompt and is
// saved with the run, and a mistaken --task-file big.log should say so.
const maxTask = repofile.TextLimit

// chooseTask sets the run's task: the argument, --task-file, or, given neither, the task
// of the unfinished run the loop resumes (and that run's template, given none). It says
// where the task came from for --dry-run.
func (s *Settings) chooseTask(o *Options) error {
	task, from, err := o.givenTask(s.Loop.Dir)
	if err != nil {
		return err
	}
	s.Loop.Task, s.taskFrom = task, from
	if err := s.fromUnfinishedRun(); err != nil {
		return err
	}
	if s.Loop.Task != "" {
		s.extra = append(s.extra, config.Entry{Key: "task", Value: display.ShortTask(s.Loop.Task), Origin: config.Origin{Kind: config.FromDefault, Name: s.taskFrom}})
	}
	return nil
}

// fromUnfinishedRun gives a loop that resumes the unfinished run what that run was started
// with and this loop was not given again: its task and its template.
func (s *Settings) fromUnfinishedRun() error {
	saved := history.PeekState(s.Loop.Dir) // a corrupt file stays for the loop to report
	if resume, _ := loop.Resumes(s.Loop, saved); !resume {
		return nil
	}
	from := "the unfinished run " + saved.Run
	if s.Loop.Task == "" && saved.Task != "" {
		s.Loop.Task, s.taskFrom = saved.Task, from
	}
	if s.Loop.Template.Name == "" && saved.Template != "" {
		return s.useTemplate(saved.Template, from)
	}
	return nil
}

// givenTask is the task given on the command line, and where from.
func (o *Options) givenTask(root string) (string, string, error) {
	switch {
	case o.Task != "" && o.TaskFile != "":
		return "", "", hints.Wrap(errors.New("give the task or --task-file, not both"), `git ralph loop "fix the failing tests" | git ralph loop --task-file task.md`)
	case o.TaskFile != "":
		task, err := readTaskFile(o.TaskFile)
		return task, "--task-file " + o.TaskFile, err
	case o.Task == "":
		return "", "", nil
	case strings.TrimSpace(o.Task) == "":
		return "", "", hints.Wrap(errors.New("the task is empty"), `say what to do: git ralph loop "fix the failing tests"`)
	case o.Task == "raw" && o.Verbose == VerboseRendered: // --verbose raw: the parser took raw for the task
		return "", "", hints.Wrap(errors.New("--verbose takes its value after '=': --verbose=raw"), `a task of one word "raw" is not one: say it in more words`)
	}
	if err := notAModeName(root, o.Task); err != nil {
		return "", "", err
	}
	return o.Task, "the command line", nil
}

// readTaskFile reads --task-file: the user's own file, wherever it is, but a regular file
// of text within maxTask (a FIFO would hang the loop, a device flood the prompt).
func readTaskFile(path string) (string, error) {
	data, err := repofile.Read(path, path, maxTask)
	var refused *repofile.RefusedError
	switch {
	case errors.As(err, &refused):
		return "", hints.Wrap(err, "give a regular file of at most %s; for more, a summary that points the agent at the file", repofile.FormatSize(maxTask))
	case errors.Is(err, fs.ErrNotExist):
		return "", hints.Wrap(fmt.Errorf("--task-file %s does not exist", path), "give the path of a file that says what to do (relative to the current directory)")
	case err != nil:
		return "", fmt.Errorf("reading --task-file %s: %w", path, err)
	case !utf8.Valid(data) || strings.ContainsRune(string(data), 0):
		return "", hints.Wrap(fmt.Errorf("--task-file %s is not text", path), "give a text file (UTF-8) that says what to do")
	case strings.TrimSpace(string(data)) == "":
		return "", hints.Wrap(fmt.Errorf("--task-file %s is empty", path), "write what to do in it, or give the task as an argument")
	}
	return string(data), nil
}

// notAModeName refuses a one-word task that names a mode (`git ralph loop plan`): the
// user most likely meant --mode, and a run on the task "plan" would spend money on it.
func notAModeName(root, task string) error {
	word := strings.TrimSpace(task)
	if strings.ContainsAny(word, " \t\n") {
		return nil
	}
	_, builtin := prompts.Default(word)
	_, statErr := os.Lstat(filepath.Join(root, prompts.FileName(word)))
	if !builtin && statErr != nil {
		return nil
	}
	return hints.Wrap(fmt.Errorf("the task %q names a mode", word),
		"to run mode %s: git ralph loop --mode %s; to give a task, say it in more than one word", word, word)
}
