//go:build unix

package gitnotes

import (
	"syscall"
)

// processAlive reports whether a process of that pid runs on this machine.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
