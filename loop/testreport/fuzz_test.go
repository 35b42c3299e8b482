package testreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzParse checks that a parser never panics, and that what it reports is bounded.
func fuzzParse(f *testing.F, format Format, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		rep, _ := Parse(format, strings.NewReader(in))
		if len(rep.Tests) > maxTests {
			t.Fatalf("%d tests", len(rep.Tests))
		}
	})
}

func fixture(f *testing.F, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	return string(b)
}

func FuzzGoTestJSON(f *testing.F) {
	fuzzParse(f, GoTestJSON, `{"Action":"fail","Package":"p","Test":"T"}`, `{"Action":"fail","Package":"p"}`+"\n{", "{}")
}

func FuzzJUnit(f *testing.F) {
	fuzzParse(f, JUnit, fixture(f, "node.junit.xml"), "<testsuite><testcase name='a'><failure/></testcase>", "<a>&bogus;</a>", "<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>")
}

func FuzzTAP(f *testing.F) {
	fuzzParse(f, TAP, fixture(f, "perl.tap"), fixture(f, "node.tap"), "1..2\nok\nnot ok 2 # todo\nBail out!")
}

func FuzzAuto(f *testing.F) {
	fuzzParse(f, Auto, fixture(f, "perl.tap"), fixture(f, "node.junit.xml"), `{"Action":"pass","Package":"p"}`)
}
