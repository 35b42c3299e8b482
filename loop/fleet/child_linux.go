package fleet

import (
	"os"
	"syscall"
)

// ownGroup puts the child in a process group of its own and has the kernel send it
// SIGTERM should this process die without passing a Ctrl+C on (kill -9, a crash): the
// child then stops its agent and its run as on any SIGTERM, and no candidate goes on
// spending with nobody to rank it. The parent death signal follows the thread that
// started the child, which RunChild keeps locked until the child has ended.
func ownGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// interrupt is a Ctrl+C for one child.
func interrupt(p *os.Process) { _ = p.Signal(syscall.SIGINT) }

// scoreGroup starts a score command as the leader of a process group of its own.
func scoreGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group p leads: the score command and whatever it started.
func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
