package main

import "github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"

// isTerminal reports whether the stream is a terminal (reporting.IsTerminal: the status
// line asks the same question).
var isTerminal = reporting.IsTerminal
