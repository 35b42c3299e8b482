//go:build unix

package repofile

import "syscall"

// openFlags keep an open from blocking: opening a FIFO for reading waits for a writer
// unless O_NONBLOCK is given. The fstat that follows refuses anything but a regular file.
const openFlags = syscall.O_NONBLOCK
