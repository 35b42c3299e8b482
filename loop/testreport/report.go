package testreport

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Format names how a test command writes its results.
type Format string

// The formats Parse reads; None reads nothing (validation goes by the exit code alone).
const (
	None       Format = ""
	GoTestJSON Format = "go-test-json"
	JUnit      Format = "junit"
	TAP        Format = "tap"
	Auto       Format = "auto" // sniffed from the output
)

// Names are the formats' names as a setting spells them, "none" first.
var Names = []string{"none", string(GoTestJSON), string(JUnit), string(TAP), string(Auto)}

// ParseFormat reads a format's name ("" and "none" are None).
func ParseFormat(name string) (Format, error) {
	switch f := Format(strings.TrimSpace(name)); f {
	case "none", None:
		return None, nil
	case GoTestJSON, JUnit, TAP, Auto:
		return f, nil
	}
	return None, fmt.Errorf("unknown test output format %q: it must be one of %s", name, strings.Join(Names, ", "))
}

// MaxInput is how much of a command's output Parse reads: a report beyond it is cut
// (Report.Truncated), never read whole into memory.
const MaxInput = 16 << 20

// maxTests bounds the tests a report holds, whatever the output claims.
const maxTests = 200_000

// Status is one test's result.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Test names one test: its suite (a Go package, a JUnit class or suite; "" in TAP) and
// its name (a Go test with its subtests, "TestX/case"). A Go package that failed
// without a failing test (it did not build, it panicked outside a test, it timed out)
// is the test of Name "" in that Suite.
type Test struct {
	Suite, Name string
}

// String is how people read a test: "TestX (example.com/m)", "package example.com/m".
func (t Test) String() string {
	switch {
	case t.Name == "":
		return "package " + t.Suite
	case t.Suite == "":
		return t.Name
	}
	return t.Name + " (" + t.Suite + ")"
}

// Matches reports whether name (a target the user wrote) names t: its name, its name
// with its suite ("SUITE.NAME", "SUITE/NAME"), or its String.
func (t Test) Matches(name string) bool {
	name = strings.TrimSpace(name)
	return name != "" && (name == t.Name || name == t.String() ||
		(t.Suite != "" && (name == t.Suite+"."+t.Name || name == t.Suite+"/"+t.Name)))
}

// Report is what a test command's output said of its tests.
type Report struct {
	Format    Format // the format read (Auto's guess; None when nothing was recognised)
	Tests     map[Test]Status
	Truncated bool // the output or the number of tests went past their bounds
}

// Failed is the report's failing tests, sorted.
func (r Report) Failed() []Test { return r.with(Fail) }

func (r Report) with(s Status) []Test {
	var out []Test
	for t, st := range r.Tests {
		if st == s {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Suite != out[j].Suite {
			return out[i].Suite < out[j].Suite
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Count is how many tests had status s.
func (r Report) Count(s Status) int {
	n := 0
	for _, st := range r.Tests {
		if st == s {
			n++
		}
	}
	return n
}

// set records a test's status; a failure is never overwritten by a later pass (a test
// run twice that failed once failed). It reports false past maxTests.
func (r *Report) set(t Test, s Status) {
	if r.Tests == nil {
		r.Tests = map[Test]Status{}
	}
	old, seen := r.Tests[t]
	if !seen && len(r.Tests) >= maxTests {
		r.Truncated = true
		return
	}
	if old == Fail {
		return
	}
	r.Tests[t] = s
}

// Parse reads the tests of a command's output in format f, at most MaxInput bytes of
// it. With Auto the format is guessed from the output; one that cannot be guessed gives
// an empty report of Format None. A report malformed halfway keeps what was read before.
func Parse(f Format, in io.Reader) (Report, error) {
	limited := &io.LimitedReader{R: in, N: MaxInput + 1}
	var rep Report
	var err error
	switch f {
	case GoTestJSON:
		rep = parseGoTest(limited)
	case JUnit:
		rep, err = parseJUnit(limited)
	case TAP:
		rep = parseTAP(limited)
	case Auto:
		return parseAuto(limited)
	case None:
		return Report{}, nil
	default:
		return Report{}, fmt.Errorf("unknown test output format %q", f)
	}
	rep.Format = f
	if limited.N <= 0 {
		rep.Truncated = true
	}
	return rep, err
}

// parseAuto guesses the format from the start of the output, then reads it whole.
func parseAuto(in *io.LimitedReader) (Report, error) {
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(in, head)
	head = head[:n]
	f := sniff(head)
	if f == None {
		return Report{}, nil
	}
	rest := io.MultiReader(bytes.NewReader(head), in)
	return Parse(f, rest)
}

// sniff guesses a format from the start of an output: JSON events with an Action, XML
// with a testsuite, or TAP's version, plan or test lines.
func sniff(head []byte) Format {
	s := string(head)
	if strings.Contains(s, "<testsuite") || strings.Contains(s, "<testcase") {
		return JUnit
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "{") && strings.Contains(line, `"Action"`):
			return GoTestJSON
		case strings.HasPrefix(line, "TAP version "), isPlan(line), isTestLine(line):
			return TAP
		}
	}
	return None
}

// Cases counts the report's tests, leaving out the Go packages' own results (Name ""),
// which stand for the tests of a package that did not run.
func (r Report) Cases() int {
	n := 0
	for t := range r.Tests {
		if t.Name != "" {
			n++
		}
	}
	return n
}
