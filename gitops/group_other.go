//go:build !unix

package gitops

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd as it is: without process groups, only git itself can be stopped.
func ownGroup(cmd *exec.Cmd) {}

// signalGroup kills the process: there is no gentler signal to send.
func signalGroup(p *os.Process, kill bool) error { return p.Kill() }
