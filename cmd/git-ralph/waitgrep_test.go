package main

import (
	"os"
	"regexp"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// waitgrep PATTERN FILE: wait until a line of FILE (a background program's output, say)
// matches PATTERN, for a story that must act at a moment only the output tells.
func cmdWaitgrep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitgrep PATTERN FILE")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	ts.Check(err)
	for deadline := time.Now().Add(waitBound); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(ts.MkAbs(args[1])); err == nil && re.Match(data) {
			return
		}
	}
	data, _ := os.ReadFile(ts.MkAbs(args[1]))
	ts.Fatalf("no line of %s matched %q within %s; it holds:\n%s", args[1], args[0], waitBound, data)
}
