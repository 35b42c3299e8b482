package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMergeModeHasABuiltInPrompt(t *testing.T) {
	dir := t.TempDir()
	got, err := Load(dir, "merge")
	if err != nil || got.Source != "built-in PROMPT_merge.md" || !strings.Contains(got.Body, "# Merge mode") {
		t.Fatalf("Load(merge) without a file = %+v, %v; want the built-in prompt", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "PROMPT_merge.md"), []byte("Our own merge rules.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err = Load(dir, "merge"); err != nil || got.Body != "Our own merge rules.\n" {
		t.Fatalf("Load(merge) with the repository's file = %+v, %v; want its own", got, err)
	}
	if _, err := Load(t.TempDir(), "build"); err == nil {
		t.Fatal("build mode without a file must stay an error: init writes its prompt")
	}
}
