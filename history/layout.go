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
// `git add -A`) except the shared configuration.
const Gitignore = `# Written by git-ralph: its state, history and logs stay out of git;
# only config.toml is shared with the repository.
*
!.gitignore
!config.toml
`

// EnsureGitignore writes .ralph/.gitignore under root unless it already exists.
func EnsureGitignore(root string) error {
	path := filepath.Join(root, Dir, ".gitignore")
	if _, err := os.Stat(path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", Dir, err)
	}
	return os.WriteFile(path, []byte(Gitignore), 0o644)
}
