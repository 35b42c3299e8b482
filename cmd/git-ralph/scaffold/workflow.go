package scaffold

import (
	"embed"
	"errors"
	"fmt"
	"io"
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

// Workflow is the files of the built-in workflow name: its file and its prompts.
func Workflow(name string) ([]File, error) {
	dir := path.Join("templates", name)
	entries, err := builtinWorkflows.ReadDir(dir)
	if err != nil || !slices.Contains(builtinWorkflowNames, name) { // path.Join cleans x/../hierarchy into one
		return nil, hints.Wrap(fmt.Errorf("no built-in workflow %q", name), "the built-in workflows: %s", strings.Join(builtinWorkflowNames, ", "))
	}
	var files []File
	for _, e := range entries {
		body, err := builtinWorkflows.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		target := workflow.Dir + "/" + name + "/" + e.Name()
		if e.Name() == name+".toml" {
			target = workflow.FilePath(name)
		}
		files = append(files, File{target, string(body)})
	}
	return files, nil
}

// ShareWorkflows makes .ralph/.gitignore let .ralph/workflows/ into git: it writes the
// file when there is none, and adds the lines to one written before workflows existed.
func ShareWorkflows(w io.Writer, root string) error {
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
	fmt.Fprintf(w, "added .ralph/workflows/ to what .ralph/.gitignore shares\n")
	return nil
}
