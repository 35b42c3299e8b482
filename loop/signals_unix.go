//go:build unix

package loop

import "syscall"

// unixSignalNames are the signals SignalName knows that only Unix systems define.
var unixSignalNames = map[syscall.Signal]string{
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2", syscall.SIGXCPU: "SIGXCPU",
}
