//go:build unix

package agent

import "syscall"

// ownGroupAttr puts a process in a process group of its own.
func ownGroupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
