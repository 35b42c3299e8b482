//go:build !unix

package pick

import "os/exec"

// detach leaves the merge as it starts: this system has no process groups to move it to.
func detach(*exec.Cmd) {}
