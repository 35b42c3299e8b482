//go:build !unix

package history

import (
	"errors"
	"os"
)

// The operations of the Unix lock, kept so that lock.go reads the same everywhere.
const (
	lockExclusive = 1 << iota
	lockShared
	lockUnlock
	lockNonBlocking
)

// ErrLockUnsupported is why a loop cannot start where flock(2) does not exist: the
// single-instance guarantee rests on a lock that dies with its process.
var ErrLockUnsupported = errors.New("the single-instance lock needs flock(2), which this system lacks: run git-ralph loops on Linux, macOS or BSD (on Windows, inside WSL)")

// flock refuses: without it no loop may start, and no lock is reported as held.
func flock(f *os.File, how int) error {
	if how&lockUnlock != 0 {
		return nil
	}
	return ErrLockUnsupported
}
