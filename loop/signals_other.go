//go:build !unix

package loop

import "syscall"

// unixSignalNames: this system defines none beyond the common ones.
var unixSignalNames = map[syscall.Signal]string{}
