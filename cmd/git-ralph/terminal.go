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

// fancyTerminal reports whether redrawn status lines and countdowns may be written to
// the stream: a terminal, not "dumb", and no NO_COLOR (https://no-color.org), which
// people also set to ask for plain output. Anything else gets plain lines only.
func fancyTerminal(stream any) bool {
	return isTerminal(stream) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}
