package testreport

import (
	"io"
	"strconv"
	"strings"
)

// parseTAP reads TAP (versions 12 to 14): "ok N - description" and "not ok N -
// description" lines, a "# SKIP" directive (skipped) and "# TODO" (a test expected to
// fail: neither its failure nor its pass counts, so it is skipped). A test without a
// description is named by its number. Indented lines (TAP 14's subtests, YAML blocks)
// are not tests of their own: the parent's line sums them up. "Bail out!" ends the
// report: the tests of the plan not reported by then failed, as the package test.
func parseTAP(in io.Reader) Report {
	var rep Report
	planned, seen, bailed := 0, 0, false
	eachLine(in, func(raw []byte) {
		if bailed {
			return
		}
		line := strings.TrimRight(string(raw), "\r")
		switch {
		case strings.HasPrefix(line, "Bail out!"):
			bailed = true
		case isPlan(line):
			planned = planCount(line)
		case isTestLine(line):
			seen++
			t, s := tapTest(line, seen)
			rep.set(t, s)
		}
	})
	if bailed || (planned > 0 && seen < planned) {
		rep.set(unfinishedPlan, Fail)
	}
	return rep
}

// unfinishedPlan is the failure of a TAP run that bailed out or ended before its plan:
// the tests it did not report.
var unfinishedPlan = Test{Name: "(the tests left when the run stopped before its plan)"}

// isTestLine reports whether a TAP line (not indented) is a test's result.
func isTestLine(line string) bool {
	return line == "ok" || line == "not ok" || strings.HasPrefix(line, "ok ") || strings.HasPrefix(line, "not ok ")
}

// isPlan reports whether a TAP line is its plan, "1..N" (with an optional "# reason").
func isPlan(line string) bool {
	rest, ok := strings.CutPrefix(line, "1..")
	if !ok {
		return false
	}
	digits := strings.TrimSpace(strings.SplitN(rest, "#", 2)[0])
	_, err := strconv.Atoi(digits)
	return err == nil
}

func planCount(line string) int {
	rest, _ := strings.CutPrefix(line, "1..")
	n, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "#", 2)[0]))
	return max(n, 0)
}

// tapTest reads one test line; seen is its place, the name of a test without number
// or description.
func tapTest(line string, seen int) (Test, Status) {
	s := Pass
	rest, failed := strings.CutPrefix(line, "not ok")
	if failed {
		s = Fail
	} else {
		rest = strings.TrimPrefix(line, "ok")
	}
	desc, directive, _ := strings.Cut(rest, "#")
	switch d := strings.ToUpper(strings.TrimSpace(directive)); {
	case strings.HasPrefix(d, "SKIP"), strings.HasPrefix(d, "TODO"):
		s = Skip
	}
	desc = strings.TrimSpace(desc)
	num, after, _ := strings.Cut(desc, " ")
	if _, err := strconv.Atoi(num); err == nil {
		desc = strings.TrimSpace(after)
	}
	desc = strings.TrimSpace(strings.TrimPrefix(desc, "- "))
	if desc == "-" || desc == "" {
		desc = "test " + strconv.Itoa(seen)
	}
	return Test{Name: desc}, s
}
