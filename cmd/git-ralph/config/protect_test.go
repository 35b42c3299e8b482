package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Every source adds protected paths and none removes one: the repository's config can
// protect more, never less than the user's file, a variable or a flag.
func TestProtectIsAUnion(t *testing.T) {
	tests := []struct {
		name string
		f    fixture
		want []string
		from string
	}{
		{"the user's file", fixture{user: `protect = ["tests/acceptance/**"]` + "\n"}, []string{"tests/acceptance/**"}, userDisplay + ":1"},
		{"a repository's empty list keeps yours", fixture{user: `protect = ["tests/acceptance/**"]` + "\n", repo: "protect = []\n"},
			[]string{"tests/acceptance/**"}, ".ralph/config.toml:1"},
		{"a repository's list adds to yours", fixture{user: `protect = ["tests/**"]` + "\n", repo: `protect = [".github/**", "tests/**"]` + "\n"},
			[]string{"tests/**", ".github/**"}, ".ralph/config.toml:1"},
		{"a mode's section adds", fixture{repo: "protect = [\"a/**\"]\n[modes.build]\nprotect = [\"b/**\"]\n"},
			[]string{"a/**", "b/**"}, ".ralph/config.toml:3 [modes.build]"},
		{"the environment and every flag add", fixture{user: `protect = ["u/**"]` + "\n", env: []string{"RALPH_PROTECT=e/**,f/**"},
			flags: []Flag{{Key: "protect", Name: "--protect", Raw: "g/**"}, {Key: "protect", Name: "--protect", Raw: "h/*.go"}}},
			[]string{"u/**", "e/**", "f/**", "g/**", "h/*.go"}, "flag --protect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.f.mustLoad(t)
			if !reflect.DeepEqual(c.Protect.V, tt.want) || c.Protect.Origin.String() != tt.from {
				t.Errorf("protect = %q from %s, want %q from %s", c.Protect.V, c.Protect.Origin, tt.want, tt.from)
			}
		})
	}
}

func TestProtectBadPatterns(t *testing.T) {
	tests := []struct {
		name, want string
		f          fixture
	}{
		{"an unclosed bracket", `.ralph/config.toml:2: protect: element 2 ("x/[ab"): a malformed segment [ab`,
			fixture{repo: "max_iterations = 3\nprotect = [\"ok/**\", \"x/[ab\"]\n"}},
		{"a leading slash", `~/.config/git-ralph/config.toml:1: protect: element 1 ("/abs/**"): a pattern starts at the repository's root`,
			fixture{user: `protect = ["/abs/**"]` + "\n"}},
		{"a ** inside a segment", `--protect: element 1 ("tests**"): '**' must be a whole segment`,
			fixture{flags: []Flag{{Key: "protect", Name: "--protect", Raw: "tests**"}}}},
		{"a number", `.ralph/config.toml:1: protect: want an array of strings, got an integer (1)`, fixture{repo: "protect = 1\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.f.load(t)
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tt.want) || e.Hint() == "" {
				t.Errorf("err = %v, want one starting %q with a hint", err, tt.want)
			}
		})
	}
}
