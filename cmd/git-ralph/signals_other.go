//go:build !unix

package main

import (
	"errors"
	"syscall"
)

// cancelSignal stands for SIGUSR1, which this system cannot deliver; no loop runs here
// to receive it (see agent.ErrNoSessions).
const cancelSignal = syscall.Signal(0x1e)

// signalProcess refuses: without Unix signals a loop cannot be asked to stop.
func signalProcess(pid int, sig syscall.Signal) error {
	return errors.New("git ralph cancel needs Unix signals, which this system lacks")
}
