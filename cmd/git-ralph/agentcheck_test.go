package main

import "testing"

func TestFirstProgram(t *testing.T) {
	tests := []struct{ command, want string }{
		{"claude -p", "claude"},
		{"FOO=1 BAR=2 codex exec -", "codex"},
		{"cat; echo x", "cat"},
		{"a|b", "a"},
		{"(cd x && run)", "("},
		{`OPTS="-p --x" cat`, `"`},
		{`'my-agent' --flag`, "my-agent"},
		{"  ", ""},
	}
	for _, tt := range tests {
		if got := firstProgram(tt.command); got != tt.want {
			t.Errorf("firstProgram(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

func TestCheckAgentProgramSkipsWhatItCannotParse(t *testing.T) {
	for _, command := range []string{`OPTS="-p --x" cat`, "(cd sub && agent)", "$AGENT -p", "exec claude"} {
		if c := checkAgentProgram(t.TempDir(), command); !c.ok {
			t.Errorf("%q: %s", command, c.problem)
		}
	}
	if c := checkAgentProgram(t.TempDir(), "no-such-agent-xyz -p"); c.ok {
		t.Error("a missing program passed")
	}
}
