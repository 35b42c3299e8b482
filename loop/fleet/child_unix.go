//go:build unix && !linux

package fleet

import (
	"os"
	"syscall"
)

func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// interrupt is a Ctrl+C for one child.
func interrupt(p *os.Process) { _ = p.Signal(syscall.SIGINT) }

// scoreGroup starts a score command as the leader of a process group of its own.
func scoreGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group p leads: the score command and whatever it started.
func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
