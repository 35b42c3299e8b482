package testreport

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// goTestJSON runs `go test -json ./...` on the real module in testdata/gomod, once, in a
// copy whose go.mod.txt becomes its go.mod: a go.mod below the repository's root would
// make that directory a module of its own, which the module's zip (go install
// ...@version) refuses to hold.
var goTestJSON = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "testreport-gomod-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := copyModule(filepath.Join("testdata", "gomod"), dir); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "test", "-count=1", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if _, failed := err.(*exec.ExitError); failed {
		err = nil // its tests fail on purpose
	}
	return out, err
})

// copyModule copies the fixture module from to to, its go.mod.txt as go.mod.
func copyModule(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		target := filepath.Join(to, strings.TrimSuffix(rel, ".txt"))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func statuses(rep Report) map[string]Status {
	out := map[string]Status{}
	for t, s := range rep.Tests {
		out[t.String()] = s
	}
	return out
}

func TestGoTestJSONOfARealPackage(t *testing.T) {
	out, err := goTestJSON()
	if err != nil {
		t.Fatalf("go test -json: %v", err)
	}
	rep, err := Parse(GoTestJSON, strings.NewReader(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{
		"TestPasses (example.com/sample)":     Pass,
		"TestFails (example.com/sample)":      Fail,
		"TestSkipped (example.com/sample)":    Skip,
		"TestTable (example.com/sample)":      Fail,
		"TestTable/good (example.com/sample)": Pass,
		"TestTable/bad (example.com/sample)":  Fail,
		"package example.com/sample":          Pass, // it failed through its tests
		"package example.com/sample/broken":   Fail, // it did not build
	}
	if got := statuses(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("go test -json read as\n%v\nwant\n%v", got, want)
	}
	if rep.Format != GoTestJSON || rep.Truncated {
		t.Errorf("format %q, truncated %v", rep.Format, rep.Truncated)
	}
}

func readFixture(t *testing.T, f Format, name string) Report {
	t.Helper()
	in, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	rep, err := Parse(f, in)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rep
}

func TestJUnitOfNodesTestRunner(t *testing.T) {
	rep := readFixture(t, JUnit, "node.junit.xml")
	want := map[string]Status{
		"adds (test)": Pass, "subtracts (test)": Fail, "later (test)": Skip,
		"top level passes (test)": Pass, "todo one (test)": Skip,
	}
	if got := statuses(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("JUnit read as\n%v\nwant\n%v", got, want)
	}
}

func TestJUnitNestedSuitesNameTheirCases(t *testing.T) {
	xml := `<?xml version="1.0"?>
<testsuites name="all"><testsuite name="outer"><testsuite name="inner">
<testcase name="a"/><testcase name="b"><error message="boom"/></testcase>
</testsuite></testsuite>
<testsuite name="surefire"><testcase classname="com.x.ParserTest" name="parses"><failure/></testcase></testsuite>
</testsuites>`
	rep, err := Parse(JUnit, strings.NewReader(xml))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{"a (inner)": Pass, "b (inner)": Fail, "parses (com.x.ParserTest)": Fail}
	if got := statuses(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestTAPOfRealRunners(t *testing.T) {
	tests := []struct {
		file string
		want map[string]Status
	}{
		{"node.tap", map[string]Status{"math": Fail, "top level passes": Pass, "todo one": Skip}},
		{"perl.tap", map[string]Status{"parses a number": Pass, "subtracts": Fail, "test 3": Skip, "reverses": Skip, "test 5": Pass}},
		{"perl-bailout.tap", map[string]Status{"parses a number": Pass, "subtracts": Fail, unfinishedPlan.String(): Fail}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			if got := statuses(readFixture(t, TAP, tt.file)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAutoRecognisesEachFormat(t *testing.T) {
	out, err := goTestJSON()
	if err != nil {
		t.Fatal(err)
	}
	if rep, _ := Parse(Auto, strings.NewReader("running tests\n"+string(out))); rep.Format != GoTestJSON || len(rep.Tests) != 8 {
		t.Errorf("go test -json: format %q, %d tests", rep.Format, len(rep.Tests))
	}
	for file, want := range map[string]Format{"node.junit.xml": JUnit, "node.tap": TAP, "perl.tap": TAP} {
		if rep := readFixture(t, Auto, file); rep.Format != want || len(rep.Tests) == 0 {
			t.Errorf("%s: format %q with %d tests, want %q", file, rep.Format, len(rep.Tests), want)
		}
	}
	if rep, err := Parse(Auto, strings.NewReader("make: *** [test] Error 1\n")); err != nil || rep.Format != None || len(rep.Tests) != 0 {
		t.Errorf("plain text: %+v, %v", rep, err)
	}
}

func TestParseFormatNamesTheChoices(t *testing.T) {
	for _, name := range []string{"", "none", "go-test-json", "junit", "tap", "auto"} {
		if _, err := ParseFormat(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	_, err := ParseFormat("xunit")
	if err == nil || !strings.Contains(err.Error(), `"xunit"`) || !strings.Contains(err.Error(), "go-test-json, junit, tap, auto") {
		t.Errorf("an unknown format: %v", err)
	}
}

func TestTargetsMatchByNameOrSuite(t *testing.T) {
	tt := Test{Suite: "example.com/m", Name: "TestX/case"}
	for _, name := range []string{"TestX/case", "example.com/m.TestX/case", "TestX/case (example.com/m)"} {
		if !tt.Matches(name) {
			t.Errorf("%q does not match %v", name, tt)
		}
	}
	if tt.Matches("TestX") || tt.Matches("") {
		t.Error("a parent's name or nothing matched a subtest")
	}
}

func TestBoundsHoldAgainstHugeOutput(t *testing.T) {
	long := strings.Repeat("x", maxLine+10)
	in := `{"Action":"pass","Package":"p","Test":"` + long + "\"}\n" + `{"Action":"fail","Package":"p","Test":"TestShort"}` + "\n"
	rep, _ := Parse(GoTestJSON, strings.NewReader(in))
	if len(rep.Tests) != 1 || rep.Tests[Test{"p", "TestShort"}] != Fail {
		t.Errorf("a line past the bound was not skipped alone: %v", statuses(rep))
	}
	big := strings.NewReader(strings.Repeat("ok 1 - a\n", MaxInput/9+10))
	if rep, _ := Parse(TAP, big); !rep.Truncated {
		t.Error("output past MaxInput was not reported as truncated")
	}
	deep := strings.Repeat("<testsuite>", maxDepth+5)
	if _, err := Parse(JUnit, strings.NewReader(deep)); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep XML: %v", err)
	}
}

func TestCasesLeaveOutPackages(t *testing.T) {
	out, err := goTestJSON()
	if err != nil {
		t.Fatal(err)
	}
	if rep, _ := Parse(GoTestJSON, strings.NewReader(string(out))); rep.Cases() != 6 {
		t.Errorf("%d cases, want the 6 tests and subtests without the 2 packages", rep.Cases())
	}
}

func TestGoTestTextIsWhatGoTestPrints(t *testing.T) {
	out, err := goTestJSON()
	if err != nil {
		t.Fatal(err)
	}
	text := GoTestText(strings.NewReader(string(out)))
	for _, want := range []string{"--- FAIL: TestFails", "sample_test.go:9: want 4, got 5", "undefined: undefinedName", "FAIL\texample.com/sample"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `"Action"`) {
		t.Errorf("JSON left in the text:\n%s", text)
	}
}
