package scaffold

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts"
	"github.com/git-ralph/git-ralph/prompts/templates"
)

// FromTemplate is what init --template writes: PROMPT_build.md, the template's prompt;
// .ralph/config.toml, the commented config with its settings; and .ralph/.gitignore.
func FromTemplate(t templates.Template) []File {
	return []File{
		{prompts.FileName("build"), t.Prompt},
		{filepath.Join(history.Dir, "config.toml"), templateConfig(t)},
		{filepath.Join(history.Dir, ".gitignore"), history.Gitignore},
	}
}

// templateConfig is the commented config of init with the template's settings: its
// iteration limit set, and its hints beside validate and until.
func templateConfig(t templates.Template) string {
	conf := fmt.Sprintf("# Scaffolded from %s: %s\n", t.Source(), display.OneLine(t.Description)) + ConfigTemplate
	if t.MaxIterations > 0 {
		conf = strings.Replace(conf, "\n# max_iterations = 5\n",
			"\nmax_iterations = "+strconv.Itoa(t.MaxIterations)+" # template "+t.Name+"\n", 1)
	}
	if t.ValidateHint != "" {
		conf = strings.Replace(conf, "\n# validate = \"\"\n", "\n# validate = \"\" # template "+t.Name+": "+display.OneLine(t.ValidateHint)+"\n", 1)
	}
	if t.Completion != "" {
		conf = strings.Replace(conf, "\n# until = \"\"\n", "\n# until = \"\" # template "+t.Name+": "+display.OneLine(t.Completion)+"\n", 1)
	}
	return conf
}

// UntilSuggestion is what init suggests besides the task: a promise command when the
// template's completion rule names --until.
func UntilSuggestion(t templates.Template) string {
	if strings.Contains(t.Completion, "--until") {
		return " --until 'YOUR TEST COMMAND'"
	}
	return " --validate 'YOUR TEST COMMAND'"
}
