//go:build unix

package pick

import (
	"os/exec"
	"syscall"
)

// detach puts a picked merge in a process group of its own: the Ctrl+C that stops
// serve or watch reaches their process group only, and the merge finishes.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
