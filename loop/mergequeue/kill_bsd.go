//go:build unix && !linux

package mergequeue

import "syscall"

// killGroup stops what is left of the process group pgid (a dead merge's validate
// command for the loop name), if anything. Without /proc to tell whose group the number
// names now, it is taken as the merge record wrote it down.
func killGroup(pgid int, name string) { syscall.Kill(-pgid, syscall.SIGKILL) }
