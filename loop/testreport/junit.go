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
	var rep Report
	d := xml.NewDecoder(in)
	d.Strict = false // a report's odd entities are its own business, never a stop
	d.Entity = xml.HTMLEntity
	var suites []string
	var current *Test
	var status Status
	for {
		tok, err := d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) || len(rep.Tests) > 0 {
				return rep, nil
			}
			return rep, fmt.Errorf("reading JUnit XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(suites) >= maxDepth {
				return rep, fmt.Errorf("reading JUnit XML: nested deeper than %d elements", maxDepth)
			}
			switch t.Name.Local {
			case "testsuite", "testsuites":
				suites = append(suites, attr(t, "name"))
			case "testcase":
				current, status = &Test{Suite: caseSuite(t, suites), Name: attr(t, "name")}, Pass
				suites = append(suites, "")
			case "failure", "error":
				if status != Skip {
					status = Fail
				}
				suites = append(suites, "")
			case "skipped": // also over a failure: Node's runner writes a TODO's failure beside it
				status = Skip
				suites = append(suites, "")
			default:
				suites = append(suites, "")
			}
		case xml.EndElement:
			if t.Name.Local == "testcase" && current != nil {
				rep.set(*current, status)
				current = nil
			}
			if len(suites) > 0 {
				suites = suites[:len(suites)-1]
			}
		}
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
