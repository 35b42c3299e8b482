package main

import "github.com/git-ralph/git-ralph/cmd/git-ralph/display"

// The commands show values as the reporting does (package display); these short names
// keep their many call sites as they read.
var (
	printable      = display.Printable
	printableText  = display.PrintableText
	formatDuration = display.Duration
	formatSize     = display.Size
	plural         = display.Plural
)
