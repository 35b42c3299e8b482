package agentcli

import (
	"slices"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	want := []string{"aider", "amp", "anthropic-api", "claude", "codex", "copilot", "cursor-agent", "gemini", "kiro-cli",
		"openai-api", "openai-chat", "opencode", "pi", "qwen"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

func TestEveryPresetIsComplete(t *testing.T) {
	for _, name := range Names() {
		p, ok := Lookup(name)
		if !ok || p.Name != name {
			t.Fatalf("Lookup(%q) = %v, %v", name, p.Name, ok)
		}
		if err := p.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if p.Note == "" {
			t.Errorf("%s: no Note", name)
		}
		if slices.ContainsFunc(p.Env, func(e string) bool { return strings.HasPrefix(e, "IS_SANDBOX=") }) {
			t.Errorf("%s: sets IS_SANDBOX, which lifts claude's root refusal behind the user's back", name)
		}
	}
}

// Facts each command line must respect (docs/guide/agents.md has the evidence).
func TestPresetFacts(t *testing.T) {
	has := func(name string, args ...string) {
		t.Helper()
		p, _ := Lookup(name)
		for _, a := range args {
			if !slices.Contains(p.Args, a) {
				t.Errorf("%s: args %q lack %q", name, p.Args, a)
			}
		}
	}
	has("claude", "-p", "--output-format", "stream-json", "--verbose") // stream-json in -p requires --verbose
	has("codex", "exec", "--json", "-")                                // "-": the prompt from stdin
	has("gemini", "--skip-trust")                                      // else yolo falls back to "default" and denies tools
	has("opencode", "--auto")                                          // else `run` auto-rejects every permission
	has("aider", "--message-file", PromptFile)                         // aider cannot read stdin
	has("copilot", "--allow-all")                                      // else it may wait for an approval forever
	has("kiro-cli", "chat", "--no-interactive")
	has("qwen", "--output-format", "stream-json", "--approval-mode", "yolo") // else its tools wait for an approval
	has("pi", "-p", "--mode", "json")                                        // print mode reads the prompt from stdin

	amp, _ := Lookup("amp")
	if amp.Args[len(amp.Args)-1] != "-x" {
		t.Errorf("amp: -x takes an optional message, so it must come last: %q", amp.Args)
	}
	for _, name := range Names() {
		if p, _ := Lookup(name); p.Prompt != Stdin && name != "aider" {
			t.Errorf("%s: prompt by %s; stdin has no size limit", name, p.Prompt)
		}
	}
	for _, name := range []string{"codex", "opencode", "qwen"} {
		if p, _ := Lookup(name); p.Timeout == 0 {
			t.Errorf("%s hangs silently but suggests no timeout", name)
		}
	}
}

func TestLookup(t *testing.T) {
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found a preset")
	}
	for alias, name := range map[string]string{"cursor": "cursor-agent", "kiro": "kiro-cli"} {
		if p, ok := Lookup(alias); !ok || p.Name != name {
			t.Errorf("Lookup(%q) = %q, %v; want %q", alias, p.Name, ok, name)
		}
	}
	p, _ := Lookup("claude")
	p.Args[0] = "changed"
	p.Args = append(p.Args, "more")
	if again, _ := Lookup("claude"); again.Args[0] != "-p" || slices.Contains(again.Args, "more") {
		t.Errorf("a caller's edit reached the table: %q", again.Args)
	}
}

func TestWith(t *testing.T) {
	claude, _ := Lookup("claude")
	tests := []struct {
		name    string
		o       Override
		program string
		args    []string
	}{
		{"nothing", Override{}, "claude", claude.Args},
		{"program", Override{Program: "/opt/claude/bin/claude"}, "/opt/claude/bin/claude", claude.Args},
		{"extra args", Override{ExtraArgs: []string{"--model", "opus"}}, "claude",
			append(slices.Clone(claude.Args), "--model", "opus")},
		{"replaced args", Override{Args: []string{"-p", "--output-format", "stream-json", "--verbose"}, ReplaceArgs: true,
			ExtraArgs: []string{"--model", "opus"}}, "claude",
			[]string{"-p", "--output-format", "stream-json", "--verbose", "--model", "opus"}},
		{"args emptied", Override{ReplaceArgs: true}, "claude", nil},
		{"args given but not replacing", Override{Args: []string{"x"}}, "claude", claude.Args},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := claude.With(tt.o)
			if got.Program != tt.program || !slices.Equal(got.Args, tt.args) {
				t.Errorf("With = %q %q, want %q %q", got.Program, got.Args, tt.program, tt.args)
			}
			if got.Format != claude.Format || got.Prompt != claude.Prompt || got.Name != "claude" {
				t.Errorf("With changed the format, prompt channel or name: %+v", got)
			}
		})
	}
	extra := Override{ExtraArgs: []string{"--x"}}
	claude.With(extra)
	if again, _ := Lookup("claude"); slices.Contains(again.Args, "--x") {
		t.Error("With changed the table")
	}
}

func TestCheck(t *testing.T) {
	aider, _ := Lookup("aider")
	if err := aider.With(Override{Args: []string{"--yes-always"}, ReplaceArgs: true}).Check(); err == nil ||
		!strings.Contains(err.Error(), PromptFile) {
		t.Errorf("Check() = %v, want an error naming %s", err, PromptFile)
	}
	if err := aider.With(Override{Args: []string{"--message-file=" + PromptFile}, ReplaceArgs: true}).Check(); err != nil {
		t.Errorf("Check() = %v for a placeholder inside an argument", err)
	}
	if err := (Preset{Name: "x"}).Check(); err == nil {
		t.Error("Check() = nil for a preset with no program")
	}
}

func TestArgv(t *testing.T) {
	aider, _ := Lookup("aider")
	argv := aider.Argv("/tmp/p.md")
	if argv[0] != "aider" || !slices.Contains(argv, "/tmp/p.md") || slices.Contains(argv, PromptFile) {
		t.Errorf("Argv = %q", argv)
	}
	stdin := Preset{Program: "x", Args: []string{PromptFile}}
	if got := stdin.Argv("/tmp/p.md"); got[1] != PromptFile {
		t.Errorf("a Stdin preset's Argv replaced the placeholder: %q", got)
	}
}

func TestStrings(t *testing.T) {
	if Stdin.String() != "stdin" || File.String() != "file" {
		t.Error("PromptChannel names")
	}
	formats := map[Format]string{Text: "text", ClaudeStream: "claude-stream-json", CodexJSON: "codex-json",
		GeminiStream: "gemini-stream-json", OpencodeJSON: "opencode-json", CopilotJSON: "copilot-json",
		QwenStream: "qwen-stream-json", PiJSON: "pi-json", APIExchange: "api-exchange"}
	for f, want := range formats {
		if f.String() != want {
			t.Errorf("Format(%d) = %q, want %q", f, f.String(), want)
		}
	}
}
