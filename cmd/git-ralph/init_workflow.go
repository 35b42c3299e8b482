package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/workflow"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

//go:embed templates/hierarchy
var builtinWorkflows embed.FS

// builtinWorkflowNames are the workflows init --workflow scaffolds.
var builtinWorkflowNames = []string{"hierarchy"}

// initWorkflow writes a built-in workflow: its file, .ralph/workflows/NAME.toml, and its
// prompts under .ralph/workflows/NAME/, never overwriting without --force; and makes
// .ralph/.gitignore share them.
func (c *InitCmd) initWorkflow(s Streams, root string) error {
	files, err := workflowScaffold(c.Workflow)
	if err != nil {
		return err
	}
	written, err := writeFiles(root, files, c.Force)
	if goOn, err := sayWritten(s.Stdout, written, err); !goOn {
		return err
	}
	if err := shareWorkflows(s, root); err != nil {
		return err
	}
	fmt.Fprintf(s.Stdout, "next:\n"+
		"  $EDITOR .ralph/workflows/%[1]s/request.md    # what you want built\n"+
		"  git add .ralph && git commit -m 'Ralph workflow %[1]s'\n"+
		"  git ralph workflow run %[1]s --agent claude   # stops at the plan for your approval (exit 7)\n", c.Workflow)
	return nil
}

// workflowScaffold is the built-in workflow name's files.
func workflowScaffold(name string) ([]scaffoldFile, error) {
	dir := path.Join("templates", name)
	entries, err := builtinWorkflows.ReadDir(dir)
	if err != nil || !slices.Contains(builtinWorkflowNames, name) { // path.Join cleans x/../hierarchy into one
		return nil, hints.Wrap(fmt.Errorf("no built-in workflow %q", name), "the built-in workflows: %s", strings.Join(builtinWorkflowNames, ", "))
	}
	var files []scaffoldFile
	for _, e := range entries {
		body, err := builtinWorkflows.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		target := workflow.Dir + "/" + name + "/" + e.Name()
		if e.Name() == name+".toml" {
			target = workflow.FilePath(name)
		}
		files = append(files, scaffoldFile{target, string(body)})
	}
	return files, nil
}

// shareWorkflows makes .ralph/.gitignore let .ralph/workflows/ into git: it writes the
// file when there is none, and adds the lines to one written before workflows existed.
func shareWorkflows(s Streams, root string) error {
	if err := history.EnsureGitignore(root); err != nil {
		return err
	}
	name := filepath.Join(history.Dir, ".gitignore")
	data, err := repofile.ReadIn(root, name, history.Dir+"/.gitignore", repofile.TextLimit)
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	if strings.Contains(string(data), "!workflows/") {
		return nil
	}
	if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		data = append(data, '\n')
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if info, err := r.Lstat(name); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return errors.New("not changing .ralph/.gitignore: it is a symlink")
	}
	if err := r.WriteFile(name, append(data, history.GitignoreWorkflows...), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	fmt.Fprintf(s.Stdout, "added .ralph/workflows/ to what .ralph/.gitignore shares\n")
	return nil
}
