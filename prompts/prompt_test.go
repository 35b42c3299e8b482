package prompts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAssemble(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "PROMPT_build.md"), []byte("Build things.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "PROMPT_review.md"), []byte("Review things.\n"), 0o644)
	tests := []struct {
		name, mode, context, want string
	}{
		{"file only", "build", "", "Build things.\n"},
		{"with context", "build", "focus on auth", "Build things.\n\n## Context\n\nfocus on auth\n"},
		{"any mode whose file exists", "review", "  ", "Review things.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Assemble(dir, tt.mode, tt.context)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Text(); got != tt.want {
				t.Errorf("Text() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMarkedShowsEverySection(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "PROMPT_plan.md"), []byte("Plan.\n"), 0o644)
	p, err := Assemble(dir, "plan", "hello")
	if err != nil {
		t.Fatal(err)
	}
	want := "──── Prompt (PROMPT_plan.md) ────\nPlan.\n──── Context (--context) ────\nhello\n"
	if got := p.Marked(); got != want {
		t.Errorf("Marked() = %q, want %q", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "PROMPT_empty.md"), []byte(" \n"), 0o644)
	var missing *MissingError
	if _, err := Load(dir, "plan"); !errors.As(err, &missing) || !strings.Contains(missing.Hint(), "git ralph init") {
		t.Errorf("missing default prompt: %v", err)
	}
	if _, err := Load(dir, "custom"); !errors.As(err, &missing) || !strings.Contains(missing.Hint(), "PROMPT_custom.md") {
		t.Errorf("missing custom prompt: %v", err)
	}
	if _, err := Load(dir, "../etc/passwd"); !errors.Is(err, ErrBadMode) {
		t.Errorf("path in mode name: %v", err)
	}
	if _, err := Load(dir, "empty"); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty prompt: %v", err)
	}
}

func TestDefaultsEndWithThePromiseInstructions(t *testing.T) {
	for _, mode := range DefaultModes {
		text, ok := Default(mode)
		if !ok {
			t.Fatalf("no default prompt for %s", mode)
		}
		for _, tag := range []string{"<promise>SUCCESS</promise>", "<promise>FAILURE</promise>"} {
			if !strings.Contains(text, tag) {
				t.Errorf("default %s prompt does not mention %s", mode, tag)
			}
		}
	}
}

func TestRepositoryPromptsAreTheDefaults(t *testing.T) {
	for _, mode := range DefaultModes {
		top, err := os.ReadFile(filepath.Join("..", FileName(mode)))
		if err != nil {
			t.Fatal(err)
		}
		if def, _ := Default(mode); string(top) != def {
			t.Errorf("../%s differs from the embedded default", FileName(mode))
		}
	}
}
