package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// WorktreeLoopSchema is the version of the files WorktreeLoop is kept in.
const WorktreeLoopSchema = 1

// WorktreeLoop is a loop that runs in a linked worktree of its own (`loop --worktree
// NAME`): where it lives and what it started from. It is kept per repository in the
// common git directory, so every work tree reads the same, and the merge queue learns
// from it the loop's base branch and the commits it has of its own.
type WorktreeLoop struct {
	SchemaVersion int       `toml:"schema_version" json:"-"`
	Name          string    `toml:"name" json:"name"`
	Branch        string    `toml:"branch" json:"branch"` // full ref: refs/heads/ralph/NAME
	Path          string    `toml:"path" json:"path"`
	BaseBranch    string    `toml:"base_branch" json:"base_branch"` // full ref; "" when the loop started from a commit that is no branch
	BaseCommit    string    `toml:"base_commit" json:"base_commit"` // the commit the branch was created at
	CreatedAt     time.Time `toml:"created_at,omitzero" json:"created_at,omitzero"`
	// DiscardedAt is when `git ralph discard` removed the loop's worktree and branch;
	// Backup is the ref that keeps the branch's last commit. Zero and "" for a live loop.
	DiscardedAt time.Time `toml:"discarded_at,omitzero" json:"discarded_at,omitzero"`
	Backup      string    `toml:"backup,omitempty" json:"backup,omitempty"`
}

// worktreeLoopsDir holds one file per worktree loop, NAME.toml, under the common git dir.
const worktreeLoopsDir = "ralph/worktrees"

// worktreeLoopFile is the file that keeps the loop name.
func worktreeLoopFile(commonDir, name string) string {
	return filepath.Join(commonDir, filepath.FromSlash(worktreeLoopsDir), name+".toml")
}

// SaveWorktreeLoop writes l's file atomically: a reader finds the old content or the new.
func SaveWorktreeLoop(commonDir string, l WorktreeLoop) error {
	l.SchemaVersion = WorktreeLoopSchema
	return writeBookkeeping(worktreeLoopFile(commonDir, l.Name), l, "the worktree loop "+l.Name, WriteFileAtomic)
}

// writeBookkeeping encodes v into path with write (WriteFileAtomic, or ReplaceFile when
// a power cut may lose it), creating its directory; what names v in errors.
func writeBookkeeping(path string, v any, what string, write func(string, []byte, os.FileMode) error) error {
	data, err := toml.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", what, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	return write(path, data, 0o644)
}

// RemoveWorktreeLoop forgets the loop name: its file goes; a loop without one is fine.
func RemoveWorktreeLoop(commonDir, name string) error {
	path := worktreeLoopFile(commonDir, name)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forgetting the worktree loop %s: %w", name, err)
	}
	return nil
}

// LoadWorktreeLoop reads the loop name's file; false when there is none.
func LoadWorktreeLoop(commonDir, name string) (WorktreeLoop, bool, error) {
	path := worktreeLoopFile(commonDir, name)
	var l WorktreeLoop
	found, err := readBookkeeping(path, &l)
	if !found || err != nil {
		return WorktreeLoop{}, false, err
	}
	if err := checkBookkeeping(path, l.SchemaVersion, WorktreeLoopSchema, l.Name, name); err != nil {
		return WorktreeLoop{}, false, err
	}
	return l, true, nil
}

// readBookkeeping reads one of the files the loops of a repository share in its common
// git directory (worktree loops, merges) into v; false when there is none.
func readBookkeeping(path string, v any) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := toml.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	return true, nil
}

// checkBookkeeping refuses a file of a newer schema than this git-ralph knows, or one
// that names another loop than the one it was read for (a file copied or renamed by hand).
func checkBookkeeping(path string, schema, known int, named, name string) error {
	switch {
	case schema > known:
		return fmt.Errorf("%s was written by a newer git-ralph (schema %d)", path, schema)
	case named != name:
		return fmt.Errorf("%s names the loop %q, not %q", path, named, name)
	}
	return nil
}

// WorktreeLoops reads every worktree loop's file, sorted by name. A file that cannot be
// read does not hide the others: its problem comes back in bad.
func WorktreeLoops(commonDir string) (loops []WorktreeLoop, bad []error, err error) {
	loops, bad, err = loadEach(filepath.Join(commonDir, filepath.FromSlash(worktreeLoopsDir)), "the worktree loops",
		func(name string) (WorktreeLoop, bool, error) { return LoadWorktreeLoop(commonDir, name) })
	sort.Slice(loops, func(i, j int) bool { return loops[i].Name < loops[j].Name })
	return loops, bad, err
}

// WorktreeLoopsLock serialises the commands that create or change worktree loops, so two
// `loop --worktree NAME` started at once cannot both create NAME.
type WorktreeLoopsLock struct{ f *os.File }

// lockWait bounds how long LockWorktreeLoops waits for another command to finish.
var lockWait = 30 * time.Second

// LockWorktreeLoops takes the worktree loops' lock of the repository whose common git
// directory is commonDir, waiting for another holder to let go (they hold it for the
// moment it takes to add a worktree). The lock dies with the process.
func LockWorktreeLoops(commonDir string) (*WorktreeLoopsLock, error) {
	path := filepath.Join(commonDir, filepath.FromSlash(worktreeLoopsDir)+".lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the lock file: %w", err)
	}
	for deadline := time.Now().Add(lockWait); ; time.Sleep(50 * time.Millisecond) {
		err = flock(f, lockExclusive|lockNonBlocking)
		if err == nil {
			return &WorktreeLoopsLock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
	}
}

// Release lets go of the lock.
func (l *WorktreeLoopsLock) Release() error {
	flock(l.f, lockUnlock)
	return l.f.Close()
}
