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

// flock refuses the exclusive lock a loop takes, so no loop starts here. The shared test
// of ReadHolder succeeds, so that status and cancel report no loop: none can run on this
// system (one run from WSL on the same files is not seen).
func flock(f *os.File, how int) error {
	if how&lockExclusive != 0 {
		return ErrLockUnsupported
	}
	return nil
}
