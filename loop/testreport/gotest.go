package testreport

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
)

// maxLine bounds one line of a line-based format; a longer line is skipped whole.
const maxLine = 1 << 20

// goEvent is the part of a `go test -json` event (test2json) that says a result.
type goEvent struct {
	Action  string
	Package string
	Test    string
}

// parseGoTest reads `go test -json` events: pass, fail and skip of each Package and Test
// (subtests are tests of their own, "TestX/case"). A package's own fail with no failing
// test of it (a build failure, a panic outside a test, a timeout) is the failure of its
// package test (Name ""); a package that passed, or failed through its tests, has that
// test passed, so that a package that breaks later is a new failure. Lines that are not
// events (a build's output, make's echo) are skipped.
func parseGoTest(in io.Reader) Report {
	var rep Report
	failedTests := map[string]bool{}
	packages := map[string]Status{}
	eachLine(in, func(line []byte) {
		if len(line) == 0 || line[0] != '{' {
			return
		}
		var e goEvent
		if json.Unmarshal(line, &e) != nil {
			return
		}
		s, ok := goStatus(e.Action)
		if !ok {
			return
		}
		switch {
		case e.Test != "":
			rep.set(Test{Suite: e.Package, Name: e.Test}, s)
			if s == Fail {
				failedTests[e.Package] = true
			}
		case e.Package != "" && packages[e.Package] != Fail:
			packages[e.Package] = s
		}
	})
	for pkg, s := range packages {
		if s == Fail && failedTests[pkg] {
			s = Pass // its failure is its tests'
		}
		rep.set(Test{Suite: pkg}, s)
	}
	return rep
}

// goStatus maps an event's action to a result; the others (run, output, pause, …) say none.
func goStatus(action string) (Status, bool) {
	switch action {
	case "pass":
		return Pass, true
	case "fail", "build-fail":
		return Fail, true
	case "skip":
		return Skip, true
	}
	return "", false
}

// eachLine calls f with each line of in (without its end), skipping lines longer than
// maxLine whole rather than stopping there.
func eachLine(in io.Reader, f func([]byte)) {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	long := false
	for {
		chunk, isPrefix, err := r.ReadLine() // a line or an error, never both
		if err != nil {
			return
		}
		if long || len(buf)+len(chunk) > maxLine {
			long, buf = true, buf[:0]
		} else {
			buf = append(buf, chunk...)
		}
		if !isPrefix {
			if !long {
				f(buf)
			}
			buf, long = buf[:0], false
		}
	}
}

// GoTestText is `go test -json` output as `go test` would have printed it: the events'
// Output texts, and the lines that are not events as they are; for the next prompt,
// where the JSON would spend the bounded tail on its framing.
func GoTestText(in io.Reader) string {
	var b strings.Builder
	eachLine(in, func(line []byte) {
		var e struct{ Action, Output string }
		if len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &e) == nil && e.Action != "" {
			b.WriteString(e.Output)
			return
		}
		b.Write(line)
		b.WriteByte('\n')
	})
	return b.String()
}
