//go:build !unix

package agent

import "syscall"

// ownGroupAttr has no process group to ask for where there are none.
func ownGroupAttr() *syscall.SysProcAttr { return nil }
