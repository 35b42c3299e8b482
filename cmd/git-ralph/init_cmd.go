package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts"
)

//go:embed templates/config.toml
var configTemplate string

//go:embed templates/spec_example.md
var specExample string

// specExamplePath is the example init writes when specs/ has no specification yet, so
// that the quick start's `$EDITOR specs/example.md` (init's own `$EDITOR specs/*.md`) opens
// something and plan mode has a spec.
var specExamplePath = filepath.Join("specs", "example.md")

// firstLoop is the first loop to run on a repository, as the README, init and the demo
// all suggest it.
const firstLoop = "git ralph loop --mode plan --max 1 --agent claude"

// InitCmd is `git ralph init`.
type InitCmd struct {
	Force    bool   `help:"Overwrite files that already exist."`
	Template string `help:"Scaffold from a loop template (see 'git ralph templates'): PROMPT_build.md is its prompt, and .ralph/config.toml has its settings." placeholder:"NAME"`
	Workflow string `help:"Scaffold a built-in workflow instead: hierarchy (plan → spec → phase → code) as .ralph/workflows/NAME.toml and its prompts." placeholder:"NAME"`
}

// scaffoldFile is one file init writes, relative to the repository root.
type scaffoldFile struct {
	path string
	body string
}

func scaffold() []scaffoldFile {
	var files []scaffoldFile
	for _, mode := range prompts.DefaultModes {
		body, _ := prompts.Default(mode)
		files = append(files, scaffoldFile{prompts.FileName(mode), body})
	}
	return append(files,
		scaffoldFile{filepath.Join(history.Dir, "config.toml"), configTemplate},
		scaffoldFile{filepath.Join(history.Dir, ".gitignore"), history.Gitignore})
}

// Run writes the scaffold, refusing to overwrite anything without --force.
func (c *InitCmd) Run(ctx context.Context, s Streams) error {
	root, err := repoRoot(ctx)
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
	written, err := writeScaffold(root, c.Force)
	if goOn, err := sayWritten(s.Stdout, written, err); !goOn {
		return err
	}
	// committed, the scaffold is where rollback and history start, and no iteration
	// takes it for the agent's work
	fmt.Fprintf(s.Stdout, "next:\n"+
		"  $EDITOR specs/*.md    # say what you want built\n"+
		"  git add %s && git commit -m 'Ralph prompts and specs'\n"+
		"  %s\n", strings.Join(addPaths(written), " "), firstLoop)
	return nil
}

// sayWritten says what writeFiles wrote, a line each, and whether init goes on to say
// what next: not after an error, nor when every file held its content already, which it
// says and is no failure.
func sayWritten(w io.Writer, written []string, err error) (bool, error) {
	if errors.Is(err, errNothingToWrite) {
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

// addPaths are the written files as 'git add' takes them: directories for what is under
// specs/ and .ralph/.
func addPaths(written []string) []string {
	var paths []string
	for _, p := range written {
		top, _, nested := strings.Cut(filepath.ToSlash(p), "/")
		if nested {
			p = top
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// writeScaffold writes every scaffold file under root, and the example specification
// when specs/ holds no Markdown file; unless force, it first checks that none of the
// scaffold exists, so it never leaves a half-written scaffold behind. It returns the
// paths written.
func writeScaffold(root string, force bool) ([]string, error) {
	files := scaffold()
	if !hasSpecs(root) {
		files = append(files, scaffoldFile{specExamplePath, specExample})
	}
	return writeFiles(root, files, force)
}

// writeFiles writes files under root: all of them, or, unless force, none when one
// exists already; never through a symlink. It returns the paths written.
func writeFiles(root string, files []scaffoldFile, force bool) ([]string, error) {
	for _, f := range files {
		if err := refuseSymlinkOnPath(root, f.path); err != nil {
			return nil, err
		}
	}
	files = slices.DeleteFunc(slices.Clone(files), func(f scaffoldFile) bool { return holds(root, f) })
	if len(files) == 0 {
		return nil, errNothingToWrite
	}
	if !force {
		var existing []string
		for _, f := range files {
			// Lstat: a dangling symlink exists too (writing it would create its target)
			if _, err := os.Lstat(filepath.Join(root, f.path)); !errors.Is(err, fs.ErrNotExist) {
				existing = append(existing, f.path)
			}
		}
		if len(existing) > 0 {
			return nil, hints.Wrap(fmt.Errorf("not overwriting %s", strings.Join(existing, ", ")),
				"use 'git ralph init --force' to replace them with the defaults")
		}
	}
	// Written through os.Root: a repository's symlink (PROMPT_build.md -> ~/.bashrc,
	// .ralph -> elsewhere) must not make init write outside it.
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var written []string
	for _, f := range files {
		if err := writeScaffoldFile(r, f); err != nil {
			return written, err
		}
		written = append(written, f.path)
	}
	return written, nil
}

// errNothingToWrite is writeFiles' answer when every file holds its content already:
// init has nothing to do, which is no failure.
var errNothingToWrite = errors.New("nothing to write: every file already holds what init would write")

// holds reports whether root's file at f.path is a regular file with f's content already:
// one the first loop wrote (.ralph/.gitignore), which init need neither refuse nor write.
func holds(root string, f scaffoldFile) bool {
	path := filepath.Join(root, filepath.FromSlash(f.path))
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() != int64(len(f.body)) {
		return false
	}
	data, err := os.ReadFile(path)
	return err == nil && string(data) == f.body
}

// refuseSymlinkOnPath refuses a scaffold path (slash-separated, under root) that is a
// symlink or lies in a symlinked directory, before anything is written.
func refuseSymlinkOnPath(root, path string) error {
	parts := strings.Split(path, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(prefix)))
		if err != nil {
			return nil // missing: nothing below it exists either
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return hints.Wrap(fmt.Errorf("not writing %s: %s is a symlink", path, prefix), "make %s a regular file or directory (or remove it), then run 'git ralph init' again", prefix)
		}
	}
	return nil
}

// writeScaffoldFile writes f inside r, refusing to write through a symlink: --force
// replaces the defaults' files, not whatever a symlink there names.
func writeScaffoldFile(r *os.Root, f scaffoldFile) error {
	name := filepath.FromSlash(f.path)
	if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(f.path), err)
	}
	if info, err := r.Lstat(name); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return hints.Wrap(fmt.Errorf("not writing %s: it is a symlink", f.path), "remove it, then run 'git ralph init' again")
	}
	out, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	if _, err := out.WriteString(f.body); err != nil {
		out.Close()
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return out.Close()
}

// hasSpecs reports whether specs/ holds a Markdown file already: then it needs no example.
func hasSpecs(root string) bool {
	found, _ := filepath.Glob(filepath.Join(root, "specs", "*.md"))
	return len(found) > 0
}
