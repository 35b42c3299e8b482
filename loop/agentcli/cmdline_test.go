package agentcli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// argsScript writes a program that prints each of its arguments followed by a NUL.
func argsScript(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "print-args")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runLine runs line with sh -c, stdin as its input, and returns its stdout.
func runLine(t *testing.T, line string, stdin []byte) []byte {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v: %s", line, err, stderr.String())
	}
	return out
}

func splitNUL(out []byte) []string {
	parts := strings.Split(string(out), "\x00")
	return parts[:len(parts)-1]
}

func TestCommandLineQuotesEveryByte(t *testing.T) {
	tricky := []string{
		"with space", "it's", `"double"`, "$HOME", "${PATH}", "`id`", "$(id)", `back\slash`,
		"new\nline", "", "*", "?", "~", "-", "--flag=a b", "tab\there", "a;b|c&d>e<f",
		"{prompt_file}", "üñí·✓", "'", "''", `'\''`, "#comment", "!bang",
	}
	p := Preset{Name: "t", Program: argsScript(t), Args: tricky}
	got := splitNUL(runLine(t, p.CommandLine("/unused"), nil))
	if !slices.Equal(got, tricky) {
		t.Errorf("args = %q\nwant  %q", got, tricky)
	}
}

func TestCommandLineOfEveryPreset(t *testing.T) {
	script := argsScript(t)
	file := "/tmp/dir with space/it's the prompt.md"
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			p, _ := Lookup(name)
			if p.InProcess() {
				t.Skip("runs in-process: no command line")
			}
			if !strings.HasPrefix(p.CommandLine(file), "exec '"+p.Program+"' ") {
				t.Errorf("CommandLine = %q, want exec and the quoted program first", p.CommandLine(file))
			}
			p.Program = script
			got := splitNUL(runLine(t, p.CommandLine(file), nil))
			if want := p.Argv(file)[1:]; !slices.Equal(got, want) {
				t.Errorf("args = %q, want %q", got, want)
			}
			if p.Prompt == File && !slices.Contains(got, file) {
				t.Errorf("args = %q: the prompt file is not among them", got)
			}
		})
	}
}

// A prompt of 1 MiB goes through: on stdin, or in a file. Put into one argument it
// would not (Linux caps one argument at 128 KiB), which is why no preset does that.
func TestLargePrompt(t *testing.T) {
	prompt := bytes.Repeat([]byte("0123456789abcde\n"), 1<<16) // 1 MiB
	size := strconv.Itoa(len(prompt))

	stdin := Preset{Name: "stdin", Program: "wc", Args: []string{"-c"}, Prompt: Stdin}
	if got := strings.TrimSpace(string(runLine(t, stdin.CommandLine(""), prompt))); got != size {
		t.Errorf("stdin: wc -c = %q, want %s", got, size)
	}

	file := filepath.Join(t.TempDir(), "prompt.md")
	if err := os.WriteFile(file, prompt, 0o600); err != nil {
		t.Fatal(err)
	}
	byFile := Preset{Name: "file", Program: "wc", Args: []string{"-c", PromptFile}, Prompt: File}
	if got := strings.Fields(string(runLine(t, byFile.CommandLine(file), nil))); len(got) == 0 || got[0] != size {
		t.Errorf("file: wc -c = %q, want %s", got, size)
	}

	if runtime.GOOS == "linux" {
		if err := exec.Command("true", string(prompt)).Run(); err == nil {
			t.Error("Linux took a 1 MiB argument; the reason presets avoid argv is gone")
		}
	}
}

func TestCommandNotFound(t *testing.T) {
	p := Preset{Name: "missing", Program: "git-ralph-no-such-agent", Args: []string{"-p"}}
	cmd := exec.Command("sh", "-c", p.CommandLine(""))
	out, err := cmd.CombinedOutput()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 127 {
		t.Fatalf("exit = %v, want 127", err)
	}
	r := p.Read(out, 127, now)
	if !strings.Contains(r.Fatal, "git-ralph-no-such-agent") || !strings.Contains(r.Fatal, "not found") {
		t.Errorf("Fatal = %q, want the shell's not-found message", r.Fatal)
	}
}
