//go:build unix

package main

import "syscall"

// cancelSignal is what `git ralph cancel` sends to the loop.
const cancelSignal = syscall.SIGUSR1

// signalProcess sends sig to the process pid.
func signalProcess(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }
