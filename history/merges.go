package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// MergeSchema is the version of the files Merge is kept in.
const MergeSchema = 1

// The states of a loop's merge through the queue.
const (
	MergeQueued      = "queued"       // waiting for the merge before it to finish
	MergeMerging     = "merging"      // being built, validated, landed (Phase says where)
	MergeNeedsReview = "needs-review" // a conflict or a failed validation: the base was left alone
	MergeMerged      = "merged"       // the base branch holds the loop's work
)

// The phases of a merge in progress, the journal that lets the next command finish or
// undo the work of a merge killed halfway.
const (
	PhaseBuilding   = "building"   // the scratch worktree is made and the merge built in it
	PhaseValidating = "validating" // Result is built; the validate command runs on it
	PhaseLanding    = "landing"    // Result passed: the base moves from BaseBefore to Result
	PhaseUpdating   = "updating"   // the base moved: the checked-out work trees follow (written by earlier versions; the landing record stands for it now)
)

// Merge is a loop's request to merge its branch into its base branch, and what became
// of it: one file per loop, kept in the common git directory so every work tree sees the
// same queue. While State is merging it is also the journal of the merge.
type Merge struct {
	SchemaVersion int       `toml:"schema_version"`
	Name          string    `toml:"name"`
	State         string    `toml:"state"`
	How           string    `toml:"how"`                // merge, squash, rebase
	Validate      string    `toml:"validate,omitempty"` // the command the result must pass; "" for none
	BaseBranch    string    `toml:"base_branch"`        // full ref the merge moves
	RequestedAt   time.Time `toml:"requested_at"`
	// the merge in progress
	Phase      string `toml:"phase,omitempty"`
	Scratch    string `toml:"scratch,omitempty"`     // the scratch worktree it is built in
	BaseBefore string `toml:"base_before,omitempty"` // the base's commit the merge started from
	Tip        string `toml:"tip,omitempty"`         // the loop's branch commit being merged
	Result     string `toml:"result,omitempty"`      // the commit the base moves to
	Validator  int    `toml:"validator,omitempty"`   // process group of the validate command while it runs
	// the outcome
	Problem    string    `toml:"problem,omitempty"` // conflict, validation failed
	Conflicts  []string  `toml:"conflicts,omitempty"`
	Output     string    `toml:"output,omitempty"` // the end of the validation's output, redacted
	FinishedAt time.Time `toml:"finished_at,omitzero"`
	// TreesFollowed: every work tree with the base checked out followed the merge when it
	// landed. A tree that stands at the old version afterwards is then the user's own doing
	// (a revert staged, the merge unstaged), which no later command may undo; only the
	// records of earlier versions, which lack it, are looked at for a tree left behind.
	TreesFollowed bool `toml:"trees_followed,omitempty"`
}

// mergesDir holds one file per loop that asked for a merge, NAME.toml, and its owner's
// lock NAME.lock, under the common git dir.
const mergesDir = "ralph/merges"

func mergeFile(commonDir, name string) string {
	return filepath.Join(commonDir, filepath.FromSlash(mergesDir), name+".toml")
}

// SaveMerge writes m's file atomically: a reader (or the next command after a kill -9)
// finds the old content or the new, never a mix. Only two records are flushed to the
// disk (see durableMerge); the others cost no fsync.
func SaveMerge(commonDir string, m Merge) error {
	m.SchemaVersion = MergeSchema
	write := ReplaceFile
	if durableMerge(m) {
		write = WriteFileAtomic
	}
	return writeBookkeeping(mergeFile(commonDir, m.Name), m, "the merge of "+m.Name, write)
}

// durableMerge reports whether m's record must survive a power cut, not only a killed
// process. The landing record must reach the disk before the base branch moves: lost, the
// next command would take a moved base for an unfinished merge and undo it, leaving the
// main work tree behind its branch. A needs-review outcome says what went wrong, which
// nothing can find again. Every other record, lost, leaves an older one that is as safe
// to resume from: a queued or building merge is dropped (its scratch worktree is found by
// its name), a merge past the landing is finished from the landing record again, and a
// lost "merged" or "already merged" only forgets a merge that is done.
func durableMerge(m Merge) bool {
	return m.Phase == PhaseLanding || m.State == MergeNeedsReview
}

// LoadMerge reads the merge of the loop name; false when there is none.
func LoadMerge(commonDir, name string) (Merge, bool, error) {
	path := mergeFile(commonDir, name)
	var m Merge
	found, err := readBookkeeping(path, &m)
	if !found || err != nil {
		return Merge{}, false, err
	}
	if err := checkBookkeeping(path, m.SchemaVersion, MergeSchema, m.Name, name); err != nil {
		return Merge{}, false, err
	}
	return m, true, nil
}

// RemoveMerge forgets the merge of the loop name.
func RemoveMerge(commonDir, name string) error {
	err := os.Remove(mergeFile(commonDir, name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the merge of %s: %w", name, err)
	}
	return nil
}

// ForgetMerge removes the merge record of the loop name and its lock file, once the loop
// itself is forgotten: a later loop of that name starts without its predecessor's state.
// The caller holds the lock (HoldMerge), so no merge of that name runs meanwhile.
func ForgetMerge(commonDir, name string) error {
	if err := RemoveMerge(commonDir, name); err != nil {
		return err
	}
	lock := filepath.Join(commonDir, filepath.FromSlash(mergesDir), name+".lock")
	if err := os.Remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the merge lock of %s: %w", name, err)
	}
	return nil
}

// Merges reads every loop's merge, oldest request first. A file that cannot be read comes
// back in bad without hiding the others.
func Merges(commonDir string) (list []Merge, bad []error, err error) {
	list, bad, err = loadEach(filepath.Join(commonDir, filepath.FromSlash(mergesDir)), "the merge queue",
		func(name string) (Merge, bool, error) { return LoadMerge(commonDir, name) })
	sort.SliceStable(list, func(i, j int) bool { return list[i].RequestedAt.Before(list[j].RequestedAt) })
	return list, bad, err
}

// loadEach loads every NAME.toml of dir with load: the per-loop files of the merge queue
// and of the worktree loops. A file load cannot read comes back in bad, so that one broken
// file hides none of the others; a dir that does not exist is an empty list.
func loadEach[T any](dir, what string, load func(name string) (T, bool, error)) (list []T, bad []error, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing %s: %w", what, err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".toml")
		if !ok || strings.HasPrefix(name, ".") || !e.Type().IsRegular() {
			continue
		}
		v, found, err := load(name)
		switch {
		case err != nil:
			bad = append(bad, err)
		case found:
			list = append(list, v)
		}
	}
	return list, bad, nil
}

// ErrMergePending means another command already holds the merge of that loop (it waits
// in the queue or merges).
var ErrMergePending = errors.New("a merge of this loop is already under way")

// FileLock is an flock held on a file; it dies with the process, so a kill -9 never
// leaves it stale.
type FileLock struct{ f *os.File }

// Release lets go of the lock.
func (l *FileLock) Release() error {
	flock(l.f, lockUnlock)
	return l.f.Close()
}

// HoldMerge takes the lock of the loop name's merge, which its requester holds from the
// moment it queues until it is done: a queue entry whose lock is free has no process
// behind it. It returns ErrMergePending when another process holds it.
func HoldMerge(commonDir, name string) (*FileLock, error) {
	f, err := openLockFile(filepath.Join(commonDir, filepath.FromSlash(mergesDir), name+".lock"))
	if err != nil {
		return nil, err
	}
	if err := flock(f, lockExclusive|lockNonBlocking); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrMergePending
		}
		return nil, fmt.Errorf("locking the merge of %s: %w", name, err)
	}
	return &FileLock{f: f}, nil
}

// MergeHeld reports whether a live process holds the merge of the loop name.
func MergeHeld(commonDir, name string) bool {
	l, err := HoldMerge(commonDir, name)
	if err != nil {
		return errors.Is(err, ErrMergePending)
	}
	l.Release()
	return false
}

// LockMergeQueue takes the queue's lock, which lets one merge run at a time in the
// repository, waiting until the merge before it is done or ctx ends. With wait false it
// returns ErrLocked at once when another holds it.
func LockMergeQueue(ctx context.Context, commonDir string, wait bool) (*FileLock, error) {
	f, err := openLockFile(filepath.Join(commonDir, filepath.FromSlash(mergesDir)+".lock"))
	if err != nil {
		return nil, err
	}
	for {
		err := flock(f, lockExclusive|lockNonBlocking)
		if err == nil {
			return &FileLock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking the merge queue: %w", err)
		}
		if !wait {
			f.Close()
			return nil, ErrLocked
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func openLockFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the lock file %s: %w", path, err)
	}
	return f, nil
}
