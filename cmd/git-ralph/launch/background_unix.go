//go:build unix

package launch

import (
	"os/exec"
	"syscall"
)

// detached makes cmd the leader of a session of its own, with no controlling terminal:
// the terminal's Ctrl+C and its hangup do not reach it, and the loop outlives the shell.
func detached(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return nil
}

// closeOnExec keeps the descriptor fd from the programs this process starts.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }
