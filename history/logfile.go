package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// LogsDir is where git-ralph's own logs live, relative to the repository root.
const LogsDir = Dir + "/logs"

// LogFile is the name of the structured log (one slog JSON record a line) in LogsDir.
const LogFile = "ralph.log"

// The default size a log grows to before it is rotated, and how many rotated files are
// kept: 5 MB × (1 + 3) bounds the disk a forgotten repository's logs can take.
const (
	DefaultLogMax  = 5 << 20
	DefaultLogKeep = 3
)

// CronLog is the log the cron entries of `git ralph schedule` append to with the shell's >>.
const CronLog = "cron.log"

// CronLogPath is root/.ralph/logs/cron.log.
func CronLogPath(root string) string { return filepath.Join(root, LogsDir, CronLog) }

// LogPath is the structured log of the repository at root.
func LogPath(root string) string { return filepath.Join(root, LogsDir, LogFile) }

// RotatingFile is an append-only log file that is rotated by size: when a write would make
// it larger than its maximum, NAME becomes NAME.1 (NAME.1 becomes NAME.2, and so on, the
// files beyond keep being removed) and the write goes to a fresh NAME. Each Write lands in
// one file whole, so a log line is never split across two files. It is safe for concurrent
// use within a process; across processes it relies on there being one writer (the loop
// holds the repository's lock), while readers may read at any time.
type RotatingFile struct {
	mu       sync.Mutex
	path     string
	maxBytes int64 // <= 0: never rotate
	keep     int
	f        *os.File // nil after a failed reopen (retried on the next write) or Close
	size     int64
	closed   bool
}

// OpenRotating opens (creating it and its directory if needed) the log at path for
// appending. maxBytes <= 0 turns rotation off; keep is how many rotated files to keep.
func OpenRotating(path string, maxBytes int64, keep int) (*RotatingFile, error) {
	if keep < 0 {
		return nil, fmt.Errorf("opening the log %s: keep %d is negative", path, keep)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating the log directory: %w", err)
	}
	r := &RotatingFile{path: path, maxBytes: maxBytes, keep: keep}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

// open opens the file at r.path for appending and learns its size.
func (r *RotatingFile) open() error {
	f, err := repofile.OpenAppend(r.path, 0o644)
	if err != nil {
		return fmt.Errorf("opening the log: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("opening the log: %w", err)
	}
	r.f, r.size = f, info.Size()
	return nil
}

// Write appends p, rotating first if p would take the file past its maximum. A p larger
// than the maximum goes whole into a fresh file. If rotating fails, p is still written to
// the current file (a log line is worth more than the size limit) and the error returned.
// Secrets in p are redacted: each Write is a whole log record, so none is cut in two.
func (r *RotatingFile) Write(p []byte) (int, error) {
	q := redact.Bytes(p)
	n, err := r.write(q)
	if n == len(q) {
		return len(p), err
	}
	return min(n, len(p)), err
}

func (r *RotatingFile) write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, fmt.Errorf("writing to the log: %w", os.ErrClosed)
	}
	if r.f == nil {
		if err := r.open(); err != nil {
			return 0, err
		}
	}
	var rotateErr error
	if r.maxBytes > 0 && r.size > 0 && r.size+int64(len(p)) > r.maxBytes {
		rotateErr = r.rotate()
		if r.f == nil {
			return 0, rotateErr
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	if err != nil {
		return n, fmt.Errorf("writing to the log: %w", err)
	}
	return n, rotateErr
}

// rotate moves the current file aside and opens a fresh one. When the files cannot be
// moved, the current file is opened again, so the caller can still write; r.f is nil only
// when no file could be opened.
func (r *RotatingFile) rotate() error {
	closeErr := r.f.Close()
	r.f = nil
	if closeErr != nil {
		closeErr = fmt.Errorf("closing the log to rotate it: %w", closeErr)
	}
	return errors.Join(closeErr, rotateFiles(r.path, r.keep), r.open())
}

// Close closes the file; later writes fail.
func (r *RotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// RotateIfLarger rotates the file at path as RotatingFile does when it is larger than
// maxBytes. It is for logs that others append to, such as the cron log that the shell's >>
// writes: call it before the file is opened for the run, or the run's output follows the
// renamed file. A missing file is not an error.
func RotateIfLarger(path string, maxBytes int64, keep int) error {
	if keep < 0 {
		return fmt.Errorf("rotating %s: keep %d is negative", path, keep)
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("rotating %s: %w", path, err)
	}
	if maxBytes <= 0 || info.Size() <= maxBytes {
		return nil
	}
	return rotateFiles(path, keep)
}

// rotateFiles shifts path's rotated files up by one (path.2 becomes path.3 …), removing
// those that would then be beyond keep (also those left by a larger keep), and renames path
// to path.1 (with keep 0, removes it).
func rotateFiles(path string, keep int) error {
	rotated := rotatedFiles(path)
	for i := len(rotated) - 1; i >= 0; i-- {
		var err error
		if old := rotated[i]; old.n >= keep {
			err = os.Remove(old.path)
		} else {
			err = os.Rename(old.path, rotatedName(path, old.n+1))
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("rotating the log: %w", err)
		}
	}
	var err error
	if keep == 0 {
		err = os.Remove(path)
	} else {
		err = os.Rename(path, rotatedName(path, 1))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rotating the log: %w", err)
	}
	return nil
}

// rotatedName is the name of path's n-th rotated file: path.n.
func rotatedName(path string, n int) string { return fmt.Sprintf("%s.%d", path, n) }

// rotatedFile is one of a log's rotated files, numbered n (1 is the newest).
type rotatedFile struct {
	path string
	n    int
}

// rotatedFiles lists path's rotated files (path.N, N a canonical number), newest (1) first.
func rotatedFiles(path string) []rotatedFile {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return nil
	}
	prefix := filepath.Base(path) + "."
	var files []rotatedFile
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), prefix)
		if n, isNumber := parseNumber(suffix); ok && isNumber && !e.IsDir() {
			files = append(files, rotatedFile{path: filepath.Join(filepath.Dir(path), e.Name()), n: n})
		}
	}
	slices.SortFunc(files, func(a, b rotatedFile) int { return a.n - b.n })
	return files
}

// LogFiles lists the files that hold the log at path, oldest first: its rotated files
// (highest number first), then path itself; only those that exist.
func LogFiles(path string) []string {
	var files []string
	rotated := rotatedFiles(path)
	for i := len(rotated) - 1; i >= 0; i-- {
		files = append(files, rotated[i].path)
	}
	if info, err := os.Stat(path); err == nil && !info.IsDir() {
		files = append(files, path)
	}
	return files
}
