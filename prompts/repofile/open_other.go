//go:build !unix

package repofile

// openFlags: outside Unix there are no FIFOs to block an open; the fstat that follows
// still refuses anything but a regular file.
const openFlags = 0

// noFollowFlags: see open_unix.go; the fstat after the open still refuses what is not a
// regular file.
const noFollowFlags = 0
