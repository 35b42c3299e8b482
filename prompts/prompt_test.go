package prompts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/prompts/repofile"
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
			p, err := Assemble(Spec{Dir: dir, Mode: tt.mode, Context: tt.context})
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
	p, err := Assemble(Spec{Dir: dir, Mode: "plan", Context: "hello"})
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

func TestAssembleFragmentsInjectionsAndFeedback(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "prompts"), 0o755)
	os.WriteFile(filepath.Join(dir, "prompts", "base.md"), []byte("Base.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "prompts", "tests.md"), []byte("Run the tests.\n"), 0o644)
	p, err := Assemble(Spec{Dir: dir, Mode: "review", Files: []string{"prompts/base.md", "prompts/tests.md"},
		Context: "ctx", Injected: []Section{{Source: "inject", Body: "use the v2 API"}, {Source: "inject", Body: "  "}},
		Feedback: "`make test` failed"})
	if err != nil {
		t.Fatal(err)
	}
	want := "Base.\n\nRun the tests.\n\n## Context\n\nctx\n\n## Context\n\nuse the v2 API\n\n## Previous iteration\n\n`make test` failed\n"
	if got := p.Text(); got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
}

func TestConfiguredPromptFiles(t *testing.T) {
	dir := t.TempDir()
	var missing *MissingError
	if _, err := Assemble(Spec{Dir: dir, Mode: "plan", Files: []string{"nope.md"}}); !errors.As(err, &missing) || !strings.Contains(missing.Hint(), "config.toml") {
		t.Errorf("missing configured file: %v", err)
	}
	for _, name := range []string{"../outside.md", "/etc/passwd"} {
		if _, err := Assemble(Spec{Dir: dir, Mode: "plan", Files: []string{name}}); err == nil || !strings.Contains(err.Error(), "inside the repository") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A prompt or fragment that leads outside the repository is refused, naming the file,
// and none of its content reaches the prompt.
func TestAssembleRefusesFilesOutsideTheRepository(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(secret, []byte("aws_secret_access_key=XYZ"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(secret, filepath.Join(dir, "PROMPT_build.md")); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []Spec{{Dir: dir, Mode: "build"}, {Dir: dir, Mode: "build", Files: []string{"PROMPT_build.md"}}} {
		p, err := Assemble(spec)
		var refused *repofile.RefusedError
		if !errors.As(err, &refused) || refused.Path != "PROMPT_build.md" || strings.Contains(p.Text(), "XYZ") {
			t.Errorf("Assemble(%+v) = %q, %v; want a refusal of PROMPT_build.md", spec, p.Text(), err)
		}
	}
}

// The size cap holds for the fragments together: a config can list one large file many
// times, each read within the cap.
func TestAssembleCapsTheFragmentsTogether(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", repofile.PromptLimit/2+1)
	if err := os.WriteFile(filepath.Join(dir, "big.md"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Assemble(Spec{Dir: dir, Mode: "build", Files: []string{"big.md"}}); err != nil {
		t.Fatalf("one fragment within the cap: %v", err)
	}
	_, err := Assemble(Spec{Dir: dir, Mode: "build", Files: []string{"big.md", "big.md", "big.md"}})
	var refused *repofile.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "refusing to read big.md: with the prompt files before it, the prompt is larger than 16 MiB") {
		t.Fatalf("three halves of the cap: %v, want a refusal", err)
	}
}
