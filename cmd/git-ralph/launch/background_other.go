//go:build !unix

package launch

import (
	"os/exec"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

// detached refuses: this system has no sessions to detach a loop into.
func detached(*exec.Cmd) error {
	return hints.Wrap(errNoBackground, "run the loop in a terminal of its own, or under a service manager")
}

// closeOnExec has nothing to do: descriptors are not inherited here.
func closeOnExec(int) {}
