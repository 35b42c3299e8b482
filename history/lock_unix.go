//go:build unix

package history

import (
	"os"
	"syscall"
)

// The flock(2) operations the lock uses.
const (
	lockExclusive   = syscall.LOCK_EX
	lockShared      = syscall.LOCK_SH
	lockUnlock      = syscall.LOCK_UN
	lockNonBlocking = syscall.LOCK_NB
)

// flock applies flock(2) to f, retrying when interrupted by a signal. It goes through
// SyscallConn rather than Fd, which would switch the file to blocking mode for good.
func flock(f *os.File, how int) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = conn.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), how)
			if ferr != syscall.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	return ferr
}
