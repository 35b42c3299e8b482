package main

import (
	"os"
)

// isTerminal reports whether the stream is a terminal (a character device). Anything
// else — a pipe, a file, a buffer in a test — is not.
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		if lw, isLocked := stream.(*lockedWriter); isLocked {
			return isTerminal(lw.w)
		}
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
