package pathglob

import (
	"slices"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"tests/acceptance/**", "tests/acceptance/login_test.go", true},
		{"tests/acceptance/**", "tests/acceptance/deep/er/x.txt", true},
		{"tests/acceptance/**", "tests/acceptance", true}, // ** takes no segment too
		{"tests/acceptance/**", "tests/unit/x_test.go", false},
		{"tests/acceptance/**", "tests/acceptance_old/x", false},
		{".github/**", ".github/workflows/ci.yml", true},
		{"**/*.golden", "a/b/c.golden", true},
		{"**/*.golden", "c.golden", true},
		{"**/*.golden", "c.golden.txt", false},
		{"go.sum", "go.sum", true},
		{"go.sum", "sub/go.sum", false},   // anchored at the root
		{"src/*.go", "src/a/b.go", false}, // '*' never crosses a '/'
		{"src/**/gen/*.go", "src/gen/x.go", true},
		{"src/**/gen/*.go", "src/a/b/gen/x.go", true},
		{"src/**/gen/*.go", "src/a/b/gen/x/y.go", false},
		{"[ab]/x", "b/x", true},
		{"a**b", "a/b", false}, // refused by Check: matches nothing
	} {
		if got := Match(c.pattern, c.path); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, good := range []string{"tests/**", "**", "a/**/b", "*.md", `a\*b`, "[a-z]/x"} {
		if err := Check(good); err != nil {
			t.Errorf("Check(%q) = %v, want nil", good, err)
		}
	}
	for _, bad := range []string{"", " ", "/abs/**", "dir/", "a//b", "../x", "a/./b", "a**", "x/[ab", `x\`} {
		if err := Check(bad); err == nil {
			t.Errorf("Check(%q) = nil, want an error", bad)
		}
	}
}

func TestTouched(t *testing.T) {
	got := Touched([]string{"tests/acceptance/**", ".github/**"},
		[]string{"src/a.go", "tests/acceptance/b_test.go", ".github/ci.yml", "tests/acceptance/b_test.go"})
	if want := []string{".github/ci.yml", "tests/acceptance/b_test.go"}; !slices.Equal(got, want) {
		t.Errorf("Touched = %q, want %q", got, want)
	}
}
