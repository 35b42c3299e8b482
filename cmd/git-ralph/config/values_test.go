package config

import (
	"slices"
	"strings"
	"testing"
)

func TestOriginString(t *testing.T) {
	tests := []struct {
		o    Origin
		want string
	}{
		{Origin{}, "default"},
		{Origin{Kind: FromFlag, Name: "--max"}, "flag --max"},
		{Origin{Kind: FromEnv, Name: "RALPH_MAX_ITERATIONS"}, "env RALPH_MAX_ITERATIONS"},
		{Origin{Kind: FromRepo, File: ".ralph/config.toml", Line: 12}, ".ralph/config.toml:12"},
		{Origin{Kind: FromRepo, File: ".ralph/config.toml", Line: 12, Mode: "plan"}, ".ralph/config.toml:12 [modes.plan]"},
		{Origin{Kind: FromUser, File: "~/.config/git-ralph/config.toml", Line: 3}, "~/.config/git-ralph/config.toml:3"},
	}
	for _, tt := range tests {
		if got := tt.o.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.o, got, tt.want)
		}
	}
}

func TestUserConfigPath(t *testing.T) {
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=/home/u"}, "/home/u/.config/git-ralph/config.toml"},
		{[]string{"HOME=/home/u", "XDG_CONFIG_HOME=/xdg"}, "/xdg/git-ralph/config.toml"},
		{[]string{"HOME=/home/u", "XDG_CONFIG_HOME=relative"}, "/home/u/.config/git-ralph/config.toml"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := UserConfigPath(tt.env); got != tt.want {
			t.Errorf("UserConfigPath(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
	if got := displayPath("/home/u/.config/x.toml", "/home/u/"); got != "~/.config/x.toml" {
		t.Errorf("displayPath = %q", got)
	}
	if got := displayPath("/home/user2/x.toml", "/home/u"); got != "/home/user2/x.toml" {
		t.Errorf("displayPath = %q", got)
	}
}

func TestSizes(t *testing.T) {
	tests := []struct {
		raw  string
		want int64 // 0: error
	}{
		{"10MB", 10 << 20}, {"512KiB", 512 << 10}, {"1GiB", 1 << 30}, {"64kb", 64 << 10}, {"1048576", 1 << 20},
		{"100 B", 100}, {"2mib", 2 << 20}, {"1gb", 1 << 30},
		{"", 0}, {"0", 0}, {"-1MB", 0}, {"1.5MB", 0}, {"2GiB", 0}, {"1TB", 0}, {"MB", 0}, {"99999999999999999999", 0},
		{"9223372036854775807KB", 0},
	}
	s := findSpec(topSpecs, "max_output_buffer")
	for _, tt := range tests {
		v, p := s.fromString(tt.raw)
		switch {
		case tt.want == 0 && p == nil:
			t.Errorf("%q: got %v, want an error", tt.raw, v)
		case tt.want != 0 && (p != nil || v != tt.want):
			t.Errorf("%q: got %v, %v; want %d", tt.raw, v, p, tt.want)
		}
	}
	if formatSize(1500) != "1500B" || formatSize(3<<30) != "3GiB" || formatSize(1536) != "1536B" || formatSize(2048) != "2KiB" {
		t.Error("formatSize")
	}
}

// history_max_size goes beyond max_output_buffer's 1GiB, and 0 turns it off; a negative
// or unreadable size is refused with the key's range.
func TestHistoryMaxSize(t *testing.T) {
	c := (fixture{env: []string{"RALPH_HISTORY_MAX_SIZE=20GiB"}}).mustLoad(t)
	if c.HistoryMaxSize.V != 20<<30 {
		t.Errorf("20GiB = %d", c.HistoryMaxSize.V)
	}
	for _, bad := range []string{`"-1MB"`, `"lots"`, `-5`} {
		_, err := fixture{repo: "history_max_size = " + bad + "\n"}.load(t)
		if err == nil || !strings.Contains(err.Error(), "history_max_size") {
			t.Errorf("history_max_size = %s: err = %v", bad, err)
		}
	}
	if _, err := (fixture{env: []string{"RALPH_MAX_OUTPUT_BUFFER=0"}}).load(t); err == nil {
		t.Error("max_output_buffer = 0 accepted")
	}
}

func TestKeys(t *testing.T) {
	keys := Keys()
	if len(keys) != 42 || keys[0] != "agent" || keys[len(keys)-1] != "prompts" {
		t.Errorf("Keys() = %q", keys)
	}
}

func TestEnvWarnings(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{"settings and git ralph's own variables", []string{"RALPH_MAX_ITERATIONS=3", "RALPH_UNLIMITED=", "RALPH_RUN=r1",
			"RALPH_ITERATION=2", "RALPH_MODE=plan", "RALPH_EVENT=x", "RALPH_HOOK=y", "PATH=/bin", "NOT_RALPH_X=1"}, nil},
		{"a typo", []string{"RALPH_MAX_ITERATONS=3"},
			[]string{"environment variable RALPH_MAX_ITERATONS is not a git ralph setting and is ignored; did you mean RALPH_MAX_ITERATIONS?"}},
		{"lower case", []string{"RALPH_validate=make"},
			[]string{"environment variable RALPH_validate is not a git ralph setting and is ignored; did you mean RALPH_VALIDATE?"}},
		{"a file-only key", []string{"RALPH_PROMPTS=a.md"},
			[]string{"environment variable RALPH_PROMPTS is ignored: prompts can be set only in a config file"}},
		{"nothing close", []string{"RALPH_XYZZY=1"},
			[]string{"environment variable RALPH_XYZZY is not a git ralph setting and is ignored; 'git ralph config' lists the settings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fixture{env: tt.env}.mustLoad(t)
			if !slices.Equal(c.Warnings, tt.want) {
				t.Errorf("warnings:\n%q\nwant:\n%q", c.Warnings, tt.want)
			}
		})
	}
}
