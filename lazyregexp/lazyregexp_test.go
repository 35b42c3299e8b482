package lazyregexp

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestActsAsTheCompiledPattern(t *testing.T) {
	const expr = `^([a-z]+)-(\d+)$`
	lazy, eager := New(expr), regexp.MustCompile(expr)
	for _, s := range []string{"abc-12", "abc-", "ABC-12", "x-1\n"} {
		if got, want := lazy.MatchString(s), eager.MatchString(s); got != want {
			t.Errorf("MatchString(%q) = %v, want %v", s, got, want)
		}
		if got, want := lazy.FindStringSubmatch(s), eager.FindStringSubmatch(s); !slices.Equal(got, want) {
			t.Errorf("FindStringSubmatch(%q) = %q, want %q", s, got, want)
		}
	}
	words := New(`(\w)(\w*)`)
	if got := words.ReplaceAllString("ab cd", "$2$1"); got != "ba dc" {
		t.Errorf("ReplaceAllString = %q, want %q", got, "ba dc")
	}
	if got := words.FindAllStringSubmatch("ab cd", -1); len(got) != 2 || got[1][1] != "c" {
		t.Errorf("FindAllStringSubmatch = %q", got)
	}
	if lazy.String() != expr {
		t.Errorf("String() = %q, want %q", lazy.String(), expr)
	}
}

// Under go test a pattern is compiled as it is declared, so a package's tests fail at
// once on a bad pattern of any of its package-level variables, used by a test or not.
func TestBadPatternPanicsAtNewUnderTest(t *testing.T) {
	if !inTest {
		t.Fatalf("os.Args[0] does not end in .test: the package's patterns are not compiled by its tests")
	}
	msg := panicOf(func() { New(`[a-`) })
	if !strings.Contains(msg, "[a-") {
		t.Errorf("New of a bad pattern under test: panic %q, want one naming the pattern", msg)
	}
}

// Outside tests New compiles nothing: the cost is paid, and a bad pattern found, at the
// first use.
func TestCompiledOnFirstUseOutsideTests(t *testing.T) {
	inTest = false
	defer func() { inTest = true }()
	r := New(`[a-`)
	if r.rx != nil {
		t.Fatal("New compiled the pattern at once")
	}
	if msg := panicOf(func() { r.MatchString("a") }); !strings.Contains(msg, "[a-") {
		t.Errorf("first use of a bad pattern: panic %q, want one naming the pattern", msg)
	}
	ok := New(`a+`)
	if !ok.MatchString("aa") || ok.rx == nil {
		t.Error("first use did not compile and match")
	}
}

func panicOf(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = strings.TrimSpace(strings.ReplaceAll(stringOf(r), "\n", " "))
		}
	}()
	f()
	return ""
}

func stringOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if e, ok := v.(error); ok {
		return e.Error()
	}
	return "?"
}
