package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeGo puts on PATH a go command whose `go test` prints one passing scenario and
// whose `go build` does what build says (a shell snippet), and returns the environment
// scripts/agents-latest.sh runs with.
func fakeGo(t *testing.T, build string) []string {
	t.Helper()
	bin := t.TempDir()
	script := "#!/bin/sh\ncase $1 in\n" +
		"test) echo '--- PASS: TestRealAgents/codex/success (1.00s)' ;;\n" +
		"build) " + build + " ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "TMPDIR="+t.TempDir())
}

// runScript runs scripts/agents-latest.sh with env and returns its exit code and output.
func runScript(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"../agents-latest.sh"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		t.Fatal(err)
	}
	return 0, string(out)
}

// The script's exit status 1 means "the newest versions differ": a comparison that
// could not even be built is an error, 2, which a caller must not read as a difference.
func TestAgentsLatestBuildFailureIsAnError(t *testing.T) {
	code, out := runScript(t, fakeGo(t, "echo 'compile error' >&2; exit 1"), "codex")
	if code != 2 {
		t.Errorf("want exit 2 when agentsdiff does not build, got %d\n%s", code, out)
	}
}

// An option after the CLI names would be taken for a CLI, after the scenarios ran twice.
func TestAgentsLatestRefusesAnOptionAfterTheNames(t *testing.T) {
	code, out := runScript(t, fakeGo(t, "exit 0"), "codex", "--update")
	if code != 2 || !strings.Contains(out, "error:") || strings.Contains(out, "running the scenarios") {
		t.Errorf("want exit 2 with an error before any run, got %d\n%s", code, out)
	}
}

// A name no CLI has is refused before the scenarios run twice for nothing.
func TestAgentsLatestRefusesAnUnknownCLI(t *testing.T) {
	code, out := runScript(t, fakeGo(t, "exit 0"), "codx")
	if code != 2 || !strings.Contains(out, "error: codx: no line for it") || strings.Contains(out, "running the scenarios") {
		t.Errorf("want exit 2 with an error before any run, got %d\n%s", code, out)
	}
	code, out = runScript(t, fakeGo(t, "exit 0"), "claude-subscriber")
	if !strings.Contains(out, "running the scenarios") {
		t.Errorf("claude-subscriber (an account of claude) was refused: %d\n%s", code, out)
	}
}
