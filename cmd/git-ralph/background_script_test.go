package main

import (
	"os"
	"strconv"
	"syscall"
	"time"

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
	pid, err := strconv.Atoi(m[1])
	ts.Check(err)
	// a story that fails before its loop ends must not leave the detached loop running
	// (it is in a session of its own, out of the test's reach): stopped as cancel stops
	// it, SIGTERM then its grace, so that it stops its agent too
	ts.Defer(func() { stopDetached(pid) })
}

// stopDetached stops a background loop a story left running: SIGTERM, up to 30 s for it
// to stop its agent, then SIGKILL.
func stopDetached(pid int) {
	if !processRunning(pid) {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for deadline := time.Now().Add(30 * time.Second); processRunning(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			return
		}
	}
}
