package agentcheck

import (
	"os"
	"path/filepath"
	"testing"
)

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
	onPath(t, "claude") // in the command's tests, testscript put its fake claude there
	for _, command := range []string{`OPTS="-p --x" cat`, "(cd sub && agent)", "$AGENT -p", "exec claude"} {
		if c := Command(t.TempDir(), command); !c.OK {
			t.Errorf("%q: %s", command, c.Problem)
		}
	}
	if c := Command(t.TempDir(), "no-such-agent-xyz -p"); c.OK {
		t.Error("a missing program passed")
	}
}

// onPath makes PATH hold only executables named as programs (they are never run).
func onPath(t *testing.T, programs ...string) {
	dir := t.TempDir()
	for _, p := range programs {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}
