package scaffold

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts"
)

// ConfigTemplate is the .ralph/config.toml init writes: every setting with its default,
// commented out.
//
//go:embed templates/config.toml
var ConfigTemplate string

//go:embed templates/spec_example.md
var specExample string

// specExamplePath is the example init writes when specs/ has no specification yet, so
// that the quick start's `$EDITOR specs/example.md` (init's own `$EDITOR specs/*.md`) opens
// something and plan mode has a spec.
var specExamplePath = filepath.Join("specs", "example.md")

// File is one file init writes, relative to the repository root.
type File struct {
	Path string
	Body string
}

// defaults are the files of a plain init: the default prompts, the commented config and
// .ralph/.gitignore.
func defaults() []File {
	var files []File
	for _, mode := range prompts.DefaultModes {
		body, _ := prompts.Default(mode)
		files = append(files, File{prompts.FileName(mode), body})
	}
	return append(files,
		File{filepath.Join(history.Dir, "config.toml"), ConfigTemplate},
		File{filepath.Join(history.Dir, ".gitignore"), history.Gitignore})
}

// Write writes every scaffold file under root, and the example specification
// when specs/ holds no Markdown file; unless force, it first checks that none of the
// scaffold exists, so it never leaves a half-written scaffold behind. It returns the
// paths written.
func Write(root string, force bool) ([]string, error) {
	files := defaults()
	if !hasSpecs(root) {
		files = append(files, File{specExamplePath, specExample})
	}
	return WriteFiles(root, files, force)
}

// WriteFiles writes files under root: all of them, or, unless force, none when one
// exists already; never through a symlink. It returns the paths written.
func WriteFiles(root string, files []File, force bool) ([]string, error) {
	for _, f := range files {
		if err := refuseSymlinkOnPath(root, f.Path); err != nil {
			return nil, err
		}
	}
	files = slices.DeleteFunc(slices.Clone(files), func(f File) bool { return holds(root, f) })
	if len(files) == 0 {
		return nil, ErrNothingToWrite
	}
	if !force {
		var existing []string
		for _, f := range files {
			// Lstat: a dangling symlink exists too (writing it would create its target)
			if _, err := os.Lstat(filepath.Join(root, f.Path)); !errors.Is(err, fs.ErrNotExist) {
				existing = append(existing, f.Path)
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
		written = append(written, f.Path)
	}
	return written, nil
}

// ErrNothingToWrite is WriteFiles' answer when every file holds its content already:
// init has nothing to do, which is no failure.
var ErrNothingToWrite = errors.New("nothing to write: every file already holds what init would write")

// holds reports whether root's file at f.Path is a regular file with f's content already:
// one the first loop wrote (.ralph/.gitignore), which init need neither refuse nor write.
func holds(root string, f File) bool {
	path := filepath.Join(root, filepath.FromSlash(f.Path))
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() != int64(len(f.Body)) {
		return false
	}
	data, err := os.ReadFile(path)
	return err == nil && string(data) == f.Body
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
func writeScaffoldFile(r *os.Root, f File) error {
	name := filepath.FromSlash(f.Path)
	if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(f.Path), err)
	}
	if info, err := r.Lstat(name); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return hints.Wrap(fmt.Errorf("not writing %s: it is a symlink", f.Path), "remove it, then run 'git ralph init' again")
	}
	out, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.Path, err)
	}
	if _, err := out.WriteString(f.Body); err != nil {
		out.Close()
		return fmt.Errorf("writing %s: %w", f.Path, err)
	}
	return out.Close()
}

// hasSpecs reports whether specs/ holds a Markdown file already: then it needs no example.
func hasSpecs(root string) bool {
	found, _ := filepath.Glob(filepath.Join(root, "specs", "*.md"))
	return len(found) > 0
}

// AddPaths are the written files as 'git add' takes them: directories for what is under
// specs/ and .ralph/.
func AddPaths(written []string) []string {
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
