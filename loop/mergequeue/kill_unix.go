//go:build unix

package mergequeue

import "syscall"

// killGroup stops what is left of the process group pgid (a dead merge's validate
// command), if anything.
func killGroup(pgid int) { syscall.Kill(-pgid, syscall.SIGKILL) }
