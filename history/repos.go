package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Repos is the user's registry of the repositories where a loop was started in the
// background: one absolute path a line (the main work tree's), so that `runs --all`
// (and, later, a supervisor) finds their loops from anywhere. It is rewritten
// atomically under a lock, de-duplicated; a path whose directory is gone is skipped
// when read and dropped when written.
type Repos struct{ Path string }

// reposFileLimit bounds the registry: a path a line, thousands of them.
const reposFileLimit = 4 << 20

// UserRepos is the registry of the user running this process:
// $XDG_STATE_HOME/git-ralph/repos, or ~/.local/state/git-ralph/repos.
func UserRepos() (Repos, error) {
	path, err := userStateDir("repos")
	if err != nil {
		return Repos{}, fmt.Errorf("finding the user's state directory for the registry of repositories: %w", err)
	}
	return Repos{Path: path}, nil
}

// List is the registered repositories whose directories still exist, in the order
// they were first registered.
func (r Repos) List() ([]string, error) {
	all, err := r.read()
	return existing(all), err
}

// Add registers the repository whose main work tree is dir (an absolute path), and
// drops the entries whose directories are gone.
func (r Repos) Add(dir string) error {
	if !filepath.IsAbs(dir) || strings.ContainsAny(dir, "\n\r") {
		return fmt.Errorf("registering the repository %q: not an absolute path on one line", dir)
	}
	unlock, err := lockStore(filepath.Dir(r.Path))
	if err != nil {
		return fmt.Errorf("registering the repository: %w", err)
	}
	defer unlock()
	all, err := r.read()
	if err != nil {
		return err
	}
	list := existing(append(all, filepath.Clean(dir)))
	data := strings.Join(list, "\n") + "\n"
	if err := ReplaceFile(r.Path, []byte(data), 0o600); err != nil {
		return fmt.Errorf("saving the registry of repositories: %w", err)
	}
	return nil
}

// read is every path of the registry, de-duplicated; none when it does not exist.
func (r Repos) read() ([]string, error) {
	data, err := repofile.ReadOwn(r.Path, r.Path, reposFileLimit) // never a FIFO or a symlink
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the registry of repositories: %w", err)
	}
	seen := map[string]bool{}
	var list []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if !filepath.IsAbs(line) || seen[filepath.Clean(line)] {
			continue
		}
		seen[filepath.Clean(line)] = true
		list = append(list, filepath.Clean(line))
	}
	return list, nil
}

// existing keeps the paths that are still directories, once each.
func existing(paths []string) []string {
	seen := map[string]bool{}
	var list []string
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil && info.IsDir() && !seen[p] {
			seen[p] = true
			list = append(list, p)
		}
	}
	return list
}
