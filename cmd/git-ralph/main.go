// Command git-ralph drives an AI coding agent through fresh-context iterations; git runs
// it as `git ralph`.
package main

import "os"

func main() { os.Exit(Main()) }

// Main runs git-ralph with the process's arguments and streams and returns its exit code.
func Main() int {
	if runWatchdog(os.Args[1:]) {
		return exitSuccess
	}
	return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
