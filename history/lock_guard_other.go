//go:build !unix

package history

import "os"

// lockDir does nothing where flock does not exist: the file lock alone holds there.
func lockDir(path string) (*os.File, error) { return nil, nil }

// dirHeld is false where there is no directory lock.
func dirHeld(path string) bool { return false }

// relock never replaces the lock file where directories cannot be locked.
func (l *Lock) relock() (*os.File, bool) { return nil, false }
