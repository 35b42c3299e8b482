// Command git-ralph drives an AI coding agent through fresh-context iterations; git runs
// it as `git ralph`.
package main

import (
	"os"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
)

func main() { os.Exit(Main()) }

// Main runs git-ralph with the process's arguments and streams and returns its exit code.
func Main() int {
	if launch.RunWatchdog(os.Args[1:]) {
		return exitcode.OK
	}
	launch.TakeBackgroundMark() // before anything is started: no child inherits it
	return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
