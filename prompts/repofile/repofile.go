package repofile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Size caps: far above any real file of the kind, far below what hurts the machine.
const (
	ConfigLimit = 1 << 20  // a config file; go-toml slows down sharply on huge documents
	PromptLimit = 16 << 20 // one prompt file or fragment; it goes to the agent every iteration
	TextLimit   = 1 << 20  // one injected text
	StateLimit  = 64 << 20 // a file git-ralph writes under .ralph/ (state, records), which a repository could replace
)

// RefusedError is a file that exists but is not read, with the reason.
type RefusedError struct {
	Path   string // as the caller named it, for the message
	Reason string // "it is a FIFO, not a regular file", …
	Limit  int64  // the size cap that applied
	Fix    string // the hint, where it is not to make Path a regular file
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refusing to read %s: %s", e.Path, e.Reason)
}

// Hint says what to do about it.
func (e *RefusedError) Hint() string {
	if e.Fix != "" {
		return e.Fix
	}
	if e.Limit == 0 {
		return "make " + e.Path + " a regular file inside the repository"
	}
	return "make " + e.Path + " a regular file inside the repository, of at most " + FormatSize(e.Limit)
}

// ReadIn reads the file name (relative to root, with / or the OS separator) of the
// repository at root. Symlinks are followed only while they stay inside root; display
// names the file in errors. A missing file gives an error for which
// errors.Is(err, fs.ErrNotExist) holds.
//
// A file in a git directory (.git, or a nested repository's) is refused like one outside
// the repository, by its name or where its symlinks lead: git's own files are not the
// repository's, and .git/config can hold the credentials of a remote.
func ReadIn(root, name, display string, limit int64) ([]byte, error) {
	if InGitDir(name) {
		return nil, &RefusedError{Path: display, Reason: inGitDirReason, Limit: limit}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	name = filepath.FromSlash(name)
	f, err := r.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if part, mode := notADirectory(r, name); part != "" {
			return nil, &RefusedError{Path: display, Reason: fmt.Sprintf("%s on its way is %s, not a directory", part, kind(mode)),
				Limit: limit, Fix: "make " + part + " a directory inside the repository, or remove it"}
		}
		// os.Root refuses every symlink that leaves root on the way, even an absolute
		// one that comes back in: resolve it and try once more with where it leads.
		rel, inside := resolveInside(root, name)
		if errors.Is(err, syscall.ELOOP) && !inside {
			return nil, &RefusedError{Path: display, Reason: "it is a symlink that leads to itself (a loop of symlinks)", Limit: limit}
		}
		if !inside {
			return nil, &RefusedError{Path: display, Reason: "it leads outside the repository (through a symlink or '..')", Limit: limit}
		}
		if rel != name {
			f, err = r.OpenFile(rel, os.O_RDONLY|openFlags, 0)
		}
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if rel, inside := resolveInside(root, name); inside && InGitDir(rel) {
		return nil, &RefusedError{Path: display, Reason: inGitDirReason + " (through a symlink)", Limit: limit}
	}
	return readRegular(f, display, limit)
}

const inGitDirReason = "it is inside the git directory (.git), whose files are git's own, not the repository's"

// InGitDir reports whether the relative path name leads into a git directory: one of its
// parts is .git, in any case (on a case-insensitive file system .GIT is the same
// directory). git never checks out a file of such a path, so only a path into git's own
// files (or a nested repository's) has one.
func InGitDir(name string) bool {
	for _, part := range strings.Split(filepath.ToSlash(name), "/") {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}

// notADirectory names the first parent of name under r that exists, inside the root,
// but is no directory — a FIFO, a regular file — with its type: the reason an open
// failed that is not a way out of the repository. "" when there is none.
func notADirectory(r *os.Root, name string) (string, fs.FileMode) {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(name)), "/")
	for i := 1; i < len(parts); i++ {
		part := strings.Join(parts[:i], "/")
		info, err := r.Stat(filepath.FromSlash(part)) // a symlink followed only inside the root; a FIFO is not opened
		if err != nil {
			return "", 0
		}
		if !info.IsDir() {
			return part, info.Mode()
		}
	}
	return "", 0
}

// resolveInside resolves the symlinks of name under root and reports where it leads,
// relative to root, and whether that is inside root. A dangling symlink is outside.
func resolveInside(root, name string) (string, bool) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	target, err := filepath.EvalSymlinks(filepath.Join(root, name))
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(realRoot, target)
	return rel, err == nil && filepath.IsLocal(rel)
}

// Read reads a file the user named, wherever it is (the user's own config, a file given
// to inject --file): a regular file within limit, opened without blocking.
func Read(path, display string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, display, limit)
}

// Open opens a file to stream it (a saved diff, a log being followed) when it is a
// regular file, without blocking; the caller closes it.
func Open(path, display string) (*os.File, error) {
	return openRegular(path, display, os.O_RDONLY|openFlags, 0, "")
}

// OpenOwn is Open for a file git-ralph writes itself under .ralph/ (a saved output or
// diff, its log), refusing a symlink in its place as well: a repository can commit
// .ralph/history/1/output.log as a symlink to ~/.ssh/id_rsa.
func OpenOwn(path, display string) (*os.File, error) {
	return openRegular(path, display, os.O_RDONLY|noFollowFlags, 0, "it is a symlink, which git-ralph does not follow to its own files")
}

// ReadOwn reads a file git-ralph wrote itself under .ralph/ (the iteration counter, a
// record), at most limit bytes, never through a symlink in its place or from a FIFO.
func ReadOwn(path, display string, limit int64) ([]byte, error) {
	f, err := OpenOwn(path, display)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, display, limit)
}

// OpenAppend opens a log git-ralph appends to (creating it with perm), refusing a
// symlink, a FIFO or anything else that is not a regular file: the file lives in the
// work tree, where a repository or an agent can put anything in its place.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	return openRegular(path, path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|noFollowFlags, perm, "it is a symlink, which git-ralph does not follow to write")
}

// openRegular opens path with flags and keeps it only when what it opened is a regular
// file. With noFollowFlags among the flags, a symlink in its last part is refused saying
// link.
func openRegular(path, display string, flags int, perm fs.FileMode, link string) (*os.File, error) {
	f, err := os.OpenFile(path, flags, perm)
	if link != "" && errors.Is(err, syscall.ELOOP) {
		return nil, &RefusedError{Path: display, Reason: link}
	}
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = &RefusedError{Path: display, Reason: "it is " + kind(info.Mode()) + ", not a regular file"}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readRegular checks the opened file itself (not the path, which may have changed) and
// reads at most limit bytes, refusing more.
func readRegular(f *os.File, display string, limit int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &RefusedError{Path: display, Reason: "it is " + kind(info.Mode()) + ", not a regular file", Limit: limit}
	}
	if info.Size() > limit {
		return nil, tooLarge(display, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1)) // a file may grow after the stat
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", display, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(display, limit)
	}
	return data, nil
}

func tooLarge(display string, limit int64) error {
	return &RefusedError{Path: display, Reason: "it is larger than " + FormatSize(limit), Limit: limit}
}

// kind names a file's type for a refusal.
func kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a file" // a part of a path where a directory belongs
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// FormatSize prints a cap as 1 MiB, 16 MiB, 512 KiB or 100 bytes.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
