package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// genfile PATH COUNT LINE: write LINE (in which %d is the line's index) COUNT times, for
// stories that need a file too large to write out in the archive.
func cmdGenfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: genfile PATH COUNT LINE")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.ReplaceAll(args[2], "%d", strconv.Itoa(i)) + "\n")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
	ts.Logf("genfile: %s has %d bytes", args[0], b.Len())
}
