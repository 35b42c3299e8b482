//go:build !unix

package fleet

import (
	"os"
	"syscall"
)

func ownGroup() *syscall.SysProcAttr { return nil }

// interrupt stops a child where there is no SIGINT to send.
func interrupt(p *os.Process) { _ = p.Kill() }

func scoreGroup() *syscall.SysProcAttr { return nil }

func killGroup(p *os.Process) error { return p.Kill() }
