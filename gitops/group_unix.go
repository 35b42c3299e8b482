//go:build unix

package gitops

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a new process group, so that git and everything it
// starts can be stopped together, and the terminal's Ctrl+C reaches git-ralph only.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM (or SIGKILL when kill) to the process group p leads.
// A group that is already gone is not an error.
func signalGroup(p *os.Process, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-p.Pid, sig); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
