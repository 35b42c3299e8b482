package testreport

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxDepth bounds how deep JUnit XML may nest, whatever the output holds.
const maxDepth = 64

// parseJUnit reads JUnit XML as JUnit, surefire, pytest, jest-junit and go-junit-report
// write it: each testcase of a testsuite (suites nested in testsuites, or in each other)
// with skipped is skipped (also with a failure: a TODO), with a failure or an error
// fails, else passes. A testcase is
// named by its name in its classname (else its suite's name). Text outside the XML (a
// command's echo before it) is skipped; XML that breaks off keeps the tests read before.
func parseJUnit(in io.Reader) (Report, error) {
	d := xml.NewDecoder(in)
	d.Strict = false // a report's odd entities are its own business, never a stop
	d.Entity = xml.HTMLEntity
	var j junitReader
	for {
		tok, err := d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) || len(j.rep.Tests) > 0 {
				return j.rep, nil
			}
			return j.rep, fmt.Errorf("reading JUnit XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(j.open) >= maxDepth {
				return j.rep, fmt.Errorf("reading JUnit XML: nested deeper than %d elements", maxDepth)
			}
			j.start(t)
		case xml.EndElement:
			j.end(t)
		}
	}
}

// junitReader is what parseJUnit knows between elements: the open elements (a suite's
// name, "" for the others), the testcase being read and its status so far.
type junitReader struct {
	rep     Report
	open    []string
	current *Test
	status  Status
}

func (j *junitReader) start(t xml.StartElement) {
	name := ""
	switch t.Name.Local {
	case "testsuite", "testsuites":
		name = attr(t, "name")
	case "testcase":
		j.current, j.status = &Test{Suite: caseSuite(t, j.open), Name: attr(t, "name")}, Pass
	case "failure", "error":
		if j.status != Skip {
			j.status = Fail
		}
	case "skipped": // also over a failure: Node's runner writes a TODO's failure beside it
		j.status = Skip
	}
	j.open = append(j.open, name)
}

func (j *junitReader) end(t xml.EndElement) {
	if t.Name.Local == "testcase" && j.current != nil {
		j.rep.set(*j.current, j.status)
		j.current = nil
	}
	if len(j.open) > 0 {
		j.open = j.open[:len(j.open)-1]
	}
}

// caseSuite is a testcase's suite: its classname, else the innermost named testsuite.
func caseSuite(t xml.StartElement, suites []string) string {
	if c := attr(t, "classname"); c != "" {
		return c
	}
	for i := len(suites) - 1; i >= 0; i-- {
		if suites[i] != "" {
			return suites[i]
		}
	}
	return ""
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}
