package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts"
)

//go:embed templates/config.toml
var configTemplate string

// InitCmd is `git ralph init`.
type InitCmd struct {
	Force bool `help:"Overwrite files that already exist."`
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
	if err := writeScaffold(root, c.Force); err != nil {
		return err
	}
	for _, f := range scaffold() {
		fmt.Fprintf(s.Stdout, "wrote %s\n", f.path)
	}
	fmt.Fprintf(s.Stdout, "next: edit the prompts, then run 'git ralph loop --mode plan --agent-cmd CMD'\n")
	return nil
}

// writeScaffold writes every scaffold file under root; unless force, it first checks
// that none exists, so it never leaves a half-written scaffold behind.
func writeScaffold(root string, force bool) error {
	files := scaffold()
	if !force {
		var existing []string
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(root, f.path)); !errors.Is(err, fs.ErrNotExist) {
				existing = append(existing, f.path)
			}
		}
		if len(existing) > 0 {
			return withHint(fmt.Errorf("not overwriting %s", strings.Join(existing, ", ")),
				"use 'git ralph init --force' to replace them with the defaults")
		}
	}
	for _, f := range files {
		path := filepath.Join(root, f.path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
		}
		if err := os.WriteFile(path, []byte(f.body), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}
