//go:build unix

package repofile

import "syscall"

// openFlags keep an open from blocking: opening a FIFO for reading waits for a writer
// unless O_NONBLOCK is given. The fstat that follows refuses anything but a regular file.
const openFlags = syscall.O_NONBLOCK

// noFollowFlags keep git-ralph's own files (the logs it appends to, the outputs it reads
// back) from being a FIFO (the open would wait for a reader) or a symlink to a file
// outside the repository (~/.bashrc).
const noFollowFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
