//go:build !unix

package agent

import (
	"errors"
	"syscall"
)

// ErrNoSessions is why no agent runs on this system: git-ralph stops an agent with
// everything it started through the agent's session and process group, which only Unix
// systems have. Running an agent it could not stop would break "never leave processes
// behind", so the loop refuses instead.
var ErrNoSessions = errors.New("running an agent needs Unix sessions and process groups, which this system lacks: run git-ralph loops on Linux, macOS or BSD (on Windows, inside WSL)")

func sessionAttr() (*syscall.SysProcAttr, error) { return nil, ErrNoSessions }

// alive: no group is ever started here.
func (g group) alive() bool { return false }

// signal: no group is ever started here.
func (g group) signal(sig syscall.Signal) {}
