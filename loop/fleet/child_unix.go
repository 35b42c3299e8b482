//go:build unix && !linux

package fleet

import (
	"os"
	"syscall"
)

func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// interrupt is a Ctrl+C for one child.
func interrupt(p *os.Process) { _ = p.Signal(syscall.SIGINT) }
