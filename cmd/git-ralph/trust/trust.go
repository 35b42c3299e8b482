package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/pelletier/go-toml/v2"
)

// FileName is the store's file in the user's git-ralph config directory.
const FileName = "trusted.toml"

// Approval is one repository whose configured commands the user approved.
type Approval struct {
	Path        string            `toml:"path"`
	Fingerprint string            `toml:"fingerprint"`
	ApprovedAt  time.Time         `toml:"approved_at"`
	Commands    map[string]string `toml:"commands"` // what was approved, for the user to read
}

type file struct {
	Repos []Approval `toml:"repo"`
}

// Store is the user's list of approvals. It lives in the user's config directory, which
// a repository's configuration cannot name or change.
type Store struct {
	path string
}

// Open gives access to the store in dir (the user's git-ralph config directory). With
// no dir (no HOME), nothing can be trusted: a shared place such as /tmp would let another
// user approve commands for you.
func Open(dir string) *Store {
	if dir == "" {
		return &Store{}
	}
	return &Store{path: filepath.Join(dir, FileName)}
}

// ErrNoStore means there is no user config directory to keep approvals in.
var ErrNoStore = errors.New("no place for trusted repositories: neither HOME nor XDG_CONFIG_HOME is set")

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Fingerprint hashes the commands a repository's configuration would run: any change to
// a key or a value gives another fingerprint, and so asks for approval again.
func Fingerprint(commands map[string]string) string {
	keys := make([]string, 0, len(commands))
	for k := range commands {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%q=%q\n", k, commands[k])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Trusted reports whether the repository at repo was approved with exactly these
// commands. A repository whose configuration runs nothing needs no approval.
func (s *Store) Trusted(repo string, commands map[string]string) (bool, error) {
	if len(commands) == 0 {
		return true, nil
	}
	f, err := s.load()
	if err != nil {
		return false, err
	}
	key, want := canonical(repo), Fingerprint(commands)
	for _, a := range f.Repos {
		if a.Path == key && a.Fingerprint == want {
			return true, nil
		}
	}
	return false, nil
}

// Approve records the commands of the repository at repo as trusted, replacing an
// earlier approval of the same repository.
func (s *Store) Approve(repo string, commands map[string]string, now time.Time) error {
	f, err := s.load()
	if err != nil {
		return err
	}
	key := canonical(repo)
	f.Repos = slices.DeleteFunc(f.Repos, func(a Approval) bool { return a.Path == key })
	f.Repos = append(f.Repos, Approval{Path: key, Fingerprint: Fingerprint(commands), ApprovedAt: now.UTC().Truncate(time.Second), Commands: commands})
	return s.save(f)
}

// Revoke removes the approval of the repository at repo; it reports whether there was one.
func (s *Store) Revoke(repo string) (bool, error) {
	f, err := s.load()
	if err != nil {
		return false, err
	}
	key, n := canonical(repo), len(f.Repos)
	f.Repos = slices.DeleteFunc(f.Repos, func(a Approval) bool { return a.Path == key })
	if len(f.Repos) == n {
		return false, nil
	}
	return true, s.save(f)
}

// RevokeWithin removes the approvals recorded for files in the directory dir (relative
// to the repository at repo), such as its workflow files; it returns their paths,
// relative to repo, with slashes.
func (s *Store) RevokeWithin(repo, dir string) ([]string, error) {
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	top := canonical(repo)
	prefix := filepath.Join(top, filepath.FromSlash(dir)) + string(filepath.Separator)
	var gone []string
	f.Repos = slices.DeleteFunc(f.Repos, func(a Approval) bool {
		if !strings.HasPrefix(a.Path, prefix) {
			return false
		}
		rel, _ := filepath.Rel(top, a.Path)
		gone = append(gone, filepath.ToSlash(rel))
		return true
	})
	if len(gone) == 0 {
		return nil, nil
	}
	slices.Sort(gone)
	return gone, s.save(f)
}

func (s *Store) load() (file, error) {
	var f file
	if s.path == "" {
		return f, ErrNoStore
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading the trusted repositories: %w", err)
	}
	if err := toml.Unmarshal(data, &f); err != nil {
		return f, &CorruptError{Path: s.path, Err: err}
	}
	return f, nil
}

func (s *Store) save(f file) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(s.path), err)
	}
	data, err := toml.Marshal(f)
	if err != nil {
		return err
	}
	header := "# Repositories whose configured commands you approved with 'git ralph trust'.\n"
	return history.WriteFileAtomic(s.path, append([]byte(header), data...), 0o600)
}

// CorruptError is a store file that does not parse. Nothing is trusted until it is
// fixed or removed; it is never overwritten, since it is the user's record.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }

// Hint says how to recover.
func (e *CorruptError) Hint() string {
	return "fix or remove that file, then run 'git ralph trust' again in each repository you use"
}

// canonical is the key of a repository: its absolute path with symlinks resolved, so one
// repository reached two ways is approved once.
func canonical(repo string) string {
	if abs, err := filepath.Abs(repo); err == nil {
		repo = abs
	}
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real
	}
	return strings.TrimRight(repo, string(filepath.Separator))
}
