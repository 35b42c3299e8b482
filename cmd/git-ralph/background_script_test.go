package main

import (
	"os"

	"github.com/git-ralph/git-ralph/lazyregexp"
	"github.com/rogpeppe/go-internal/testscript"
)

// pidInOutput is the pid a command printed: "(pid 1234)".
var pidInOutput = lazyregexp.New(`\(pid ([0-9]+)\)`)

// pidfrom FILE PIDFILE: write the first pid FILE names ("(pid 1234)") to PIDFILE, for
// running, waitgone and the leftover kill of a failed story (*.pid): a background loop's,
// which no start of the story holds.
func cmdPidFrom(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: pidfrom FILE PIDFILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	m := pidInOutput.FindStringSubmatch(string(data))
	if m == nil {
		ts.Fatalf("%s names no pid", args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(m[1]+"\n"), 0o644))
}
