package reporting

import (
	"os"

	"golang.org/x/term"
)

// IsTerminal reports whether the stream is a terminal: a file the terminal driver answers
// for (isatty). Character devices that are no terminal — /dev/null above all, which cron
// and `</dev/null` give — are not, nor is a pipe, a file or a buffer in a test.
func IsTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		if lw, isLocked := stream.(*LockedWriter); isLocked {
			return IsTerminal(lw.w)
		}
		return false
	}
	conn, err := f.SyscallConn() // not Fd, which would switch the file to blocking mode
	if err != nil {
		return false
	}
	tty := false
	conn.Control(func(fd uintptr) { tty = term.IsTerminal(int(fd)) })
	return tty
}

// fancyTerminal reports whether redrawn status lines and countdowns may be written to
// the stream: a terminal, not "dumb", and no NO_COLOR (https://no-color.org), which
// people also set to ask for plain output. Anything else gets plain lines only.
func fancyTerminal(stream any) bool {
	return IsTerminal(stream) && !NoColor() && os.Getenv("TERM") != "dumb"
}

// NoColor reports whether the user asked for output without colour: NO_COLOR set and
// not empty, as https://no-color.org says (an empty NO_COLOR is as if it were unset).
func NoColor() bool { return os.Getenv("NO_COLOR") != "" }
