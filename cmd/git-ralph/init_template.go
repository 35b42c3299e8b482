package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts"
	"github.com/git-ralph/git-ralph/prompts/templates"
)

// fromTemplate is `git ralph init --template NAME`: PROMPT_build.md is the template's
// prompt (its {task} placeholder kept for `git ralph loop "TASK"`), .ralph/config.toml the
// usual commented file with the template's settings, and .ralph/.gitignore; nothing is
// overwritten without --force.
func (c *InitCmd) fromTemplate(s Streams, root string) error {
	t, err := templates.Find(templateDirs(root), c.Template)
	if err != nil {
		return hints.Wrap(fmt.Errorf("init --template: %w", err), "%s", templateHint(err))
	}
	files := []scaffoldFile{
		{prompts.FileName("build"), t.Prompt},
		{filepath.Join(history.Dir, "config.toml"), templateConfig(t)},
		{filepath.Join(history.Dir, ".gitignore"), history.Gitignore},
	}
	written, err := writeFiles(root, files, c.Force)
	if goOn, err := sayWritten(s.Stdout, written, err); !goOn {
		return err
	}
	fmt.Fprintf(s.Stdout, "from %s\nnext:\n"+
		"  git add %s && git commit -m 'Ralph prompt from template %s'\n"+
		"  git ralph loop \"TASK\" --agent claude%s\n", display.Printable(t.Source()),
		strings.Join(addPaths(written), " "), display.Printable(t.Name), untilSuggestion(t))
	return nil
}

// templateConfig is the commented config of init with the template's settings: its
// iteration limit set, and its hints beside validate and until.
func templateConfig(t templates.Template) string {
	conf := fmt.Sprintf("# Scaffolded from %s: %s\n", t.Source(), oneLineText(t.Description)) + configTemplate
	if t.MaxIterations > 0 {
		conf = strings.Replace(conf, "\n# max_iterations = 5\n",
			"\nmax_iterations = "+strconv.Itoa(t.MaxIterations)+" # template "+t.Name+"\n", 1)
	}
	if t.ValidateHint != "" {
		conf = strings.Replace(conf, "\n# validate = \"\"\n", "\n# validate = \"\" # template "+t.Name+": "+oneLineText(t.ValidateHint)+"\n", 1)
	}
	if t.Completion != "" {
		conf = strings.Replace(conf, "\n# until = \"\"\n", "\n# until = \"\" # template "+t.Name+": "+oneLineText(t.Completion)+"\n", 1)
	}
	return conf
}

// untilSuggestion is what init suggests besides the task: a promise command when the
// template's completion rule names --until.
func untilSuggestion(t templates.Template) string {
	if strings.Contains(t.Completion, "--until") {
		return " --until 'YOUR TEST COMMAND'"
	}
	return " --validate 'YOUR TEST COMMAND'"
}
