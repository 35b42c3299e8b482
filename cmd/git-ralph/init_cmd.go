package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/scaffold"
	"github.com/git-ralph/git-ralph/prompts/templates"
)

// firstLoop is the first loop to run on a repository, as the README, init and the demo
// all suggest it.
const firstLoop = "git ralph loop --mode plan --max 1 --agent claude"

// InitCmd is `git ralph init`.
type InitCmd struct {
	Force    bool   `help:"Overwrite files that already exist."`
	Template string `help:"Scaffold from a loop template (see 'git ralph templates'): PROMPT_build.md is its prompt, and .ralph/config.toml has its settings." placeholder:"NAME"`
	Workflow string `help:"Scaffold a built-in workflow instead: hierarchy (plan → spec → phase → code) as .ralph/workflows/NAME.toml and its prompts." placeholder:"NAME"`
}

// Run writes the scaffold, refusing to overwrite anything without --force.
func (c *InitCmd) Run(ctx context.Context, s Streams) error {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	if c.Template != "" && c.Workflow != "" {
		return hints.Wrap(errors.New("--template and --workflow scaffold different things"), "run 'git ralph init' once with each")
	}
	if c.Template != "" {
		return c.fromTemplate(s, root)
	}
	if c.Workflow != "" {
		return c.initWorkflow(s, root)
	}
	written, err := scaffold.Write(root, c.Force)
	if goOn, err := sayWritten(s.Stdout, written, err); !goOn {
		return err
	}
	// committed, the scaffold is where rollback and history start, and no iteration
	// takes it for the agent's work
	fmt.Fprintf(s.Stdout, "next:\n"+
		"  $EDITOR specs/*.md    # say what you want built\n"+
		"  git add %s && git commit -m 'Ralph prompts and specs'\n"+
		"  %s\n", strings.Join(scaffold.AddPaths(written), " "), firstLoop)
	return nil
}

// sayWritten says what writeFiles wrote, a line each, and whether init goes on to say
// what next: not after an error, nor when every file held its content already, which it
// says and is no failure.
func sayWritten(w io.Writer, written []string, err error) (bool, error) {
	if errors.Is(err, scaffold.ErrNothingToWrite) {
		fmt.Fprintln(w, err)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, path := range written {
		fmt.Fprintf(w, "wrote %s\n", filepath.ToSlash(path))
	}
	return true, nil
}

// fromTemplate is `git ralph init --template NAME`: PROMPT_build.md is the template's
// prompt (its {task} placeholder kept for `git ralph loop "TASK"`), .ralph/config.toml the
// usual commented file with the template's settings, and .ralph/.gitignore; nothing is
// overwritten without --force.
func (c *InitCmd) fromTemplate(s Streams, root string) error {
	t, err := templates.Find(launch.TemplateDirs(root), c.Template)
	if err != nil {
		return hints.Wrap(fmt.Errorf("init --template: %w", err), "%s", launch.TemplateHint(err))
	}
	written, err := scaffold.WriteFiles(root, scaffold.FromTemplate(t), c.Force)
	if goOn, err := sayWritten(s.Stdout, written, err); !goOn {
		return err
	}
	fmt.Fprintf(s.Stdout, "from %s\nnext:\n"+
		"  git add %s && git commit -m 'Ralph prompt from template %s'\n"+
		"  git ralph loop \"TASK\" --agent claude%s\n", display.Printable(t.Source()),
		strings.Join(scaffold.AddPaths(written), " "), display.Printable(t.Name), scaffold.UntilSuggestion(t))
	return nil
}

// initWorkflow writes a built-in workflow: its file, .ralph/workflows/NAME.toml, and its
// prompts under .ralph/workflows/NAME/, never overwriting without --force; and makes
// .ralph/.gitignore share them.
func (c *InitCmd) initWorkflow(s Streams, root string) error {
	files, err := scaffold.Workflow(c.Workflow)
	if err != nil {
		return err
	}
	written, err := scaffold.WriteFiles(root, files, c.Force)
	if goOn, err := sayWritten(s.Stdout, written, err); !goOn {
		return err
	}
	if err := scaffold.ShareWorkflows(s.Stdout, root); err != nil {
		return err
	}
	fmt.Fprintf(s.Stdout, "next:\n"+
		"  $EDITOR .ralph/workflows/%[1]s/request.md    # what you want built\n"+
		"  git add .ralph && git commit -m 'Ralph workflow %[1]s'\n"+
		"  git ralph workflow run %[1]s --agent claude   # stops at the plan for your approval (exit 7)\n", c.Workflow)
	return nil
}
