//go:build unix

package history

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes the second half of the single-instance lock: flock on the directory that
// holds the lock file (the git directory). An agent can delete the lock file — `rm -f
// .git/*.lock` is a common way to clear a stale index.lock — and a second loop would then
// lock a new file of the same name; it cannot delete the git directory without destroying
// the repository. It returns nil and no error where directories cannot be locked (some
// network file systems): the file lock alone holds there.
func lockDir(path string) (*os.File, error) {
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return nil, nil
	}
	err = flockRetry(dir, syscall.LOCK_EX)
	switch {
	case err == nil:
		return dir, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		dir.Close()
		return nil, err
	}
	dir.Close()
	return nil, nil
}

// dirHeld reports whether a loop holds the directory lock of the lock file at path.
func dirHeld(path string) bool {
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return false
	}
	defer dir.Close()
	if err := flock(dir, syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	flock(dir, syscall.LOCK_UN)
	return false
}

// relock locks a lock file that was created again at path after the one l holds was
// deleted or replaced, and writes the holder line into it. It reports false when the file
// at path is l's own or another process holds the new one.
func (l *Lock) relock() (*os.File, bool) {
	if info, err := os.Stat(l.path); err == nil {
		if own, err := l.f.Stat(); err == nil && os.SameFile(info, own) {
			return nil, false
		}
	}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false
	}
	if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil || writeHolder(f, l.holder) != nil {
		f.Close()
		return nil, false
	}
	return f, true
}
