package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir is git-ralph's directory in a repository.
const Dir = ".ralph"

// Gitignore keeps everything in .ralph/ out of the user's commits (agents commonly run
// `git add -A`) except the shared configuration (the judge prompt is part of it), the
// repository's loop templates and its workflows.
const Gitignore = `# Written by git-ralph: its state, history and logs stay out of git;
# config.toml, the judge prompt, the loop templates and the workflows are shared with the repository.
*
!.gitignore
!templates/
!templates/**
!config.toml
!PROMPT_judge.md
` + GitignoreWorkflows

// GitignoreWorkflows are the lines of Gitignore that share .ralph/workflows/ (the
// workflow files and their prompts); init adds them to an older .gitignore.
const GitignoreWorkflows = `!workflows/
!workflows/**
`

// OwnDirError is one of git-ralph's directories that is a symlink or not a directory.
type OwnDirError struct {
	Path   string // relative to the repository root, with /
	Reason string
}

func (e *OwnDirError) Error() string {
	return fmt.Sprintf("refusing to use %s: %s", e.Path, e.Reason)
}

// Hint says what to do about it.
func (e *OwnDirError) Hint() string {
	return "git-ralph writes and deletes files there; remove " + e.Path + " (after moving away what you keep) and let git-ralph create it as a directory"
}

// ownDirs are the directories git-ralph writes into, from the top down.
var ownDirs = []string{Dir, Dir + "/" + historyDir, LogsDir, Dir + "/" + injectDir, WorkflowDir}

// CheckOwnDirs refuses a repository where one of git-ralph's directories is a symlink or
// something else than a directory. A repository can commit .ralph/history as a symlink to
// any directory of the machine, and git-ralph would then write, replace and prune files
// there; a missing directory is fine (it is created when needed).
func CheckOwnDirs(root string) error {
	for _, d := range ownDirs {
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d)))
		switch {
		case errors.Is(err, fs.ErrNotExist) && d == Dir:
			return nil // nor is anything under it
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return fmt.Errorf("checking %s: %w", d, err)
		case info.Mode()&fs.ModeSymlink != 0:
			return &OwnDirError{Path: d, Reason: "it is a symlink, and git-ralph keeps its files only in a directory of the repository itself"}
		case !info.IsDir():
			return &OwnDirError{Path: d, Reason: "it is not a directory"}
		}
	}
	return nil
}

// EnsureGitignore writes .ralph/.gitignore under root unless it already exists.
func EnsureGitignore(root string) error {
	if err := CheckOwnDirs(root); err != nil {
		return err
	}
	path := filepath.Join(root, Dir, ".gitignore")
	// Lstat: a dangling symlink committed there must not make WriteFile create its target
	if _, err := os.Lstat(path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", Dir, err)
	}
	return os.WriteFile(path, []byte(Gitignore), 0o644)
}
