package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAssembleJudge(t *testing.T) {
	dir := t.TempDir()
	spec := JudgeSpec{Dir: dir, Task: "Fix the parser.", TaskSource: "PROMPT_build.md", Iteration: 3,
		Validation: "`go test ./...` passed", Diff: "+x := \"```\"\n", DiffNote: "(cut)"}
	p, err := AssembleJudge(spec)
	if err != nil {
		t.Fatal(err)
	}
	text := p.Text()
	for _, want := range []string{"You are the judge", "<verdict>PASS</verdict>", "## Task\n\nFix the parser.",
		"## What iteration 3 produced\n\nValidation: `go test ./...` passed.", "````diff\n+x := \"```\"\n````", "(cut)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the judge's prompt lacks %q:\n%s", want, text)
		}
	}
	if p.Sections[0].Source != "built-in judge prompt" {
		t.Errorf("criteria from %q", p.Sections[0].Source)
	}

	os.MkdirAll(filepath.Join(dir, ".ralph"), 0o755)
	os.WriteFile(filepath.Join(dir, JudgeFile), []byte("Our criteria.\n"), 0o644)
	spec.Diff = ""
	p, err = AssembleJudge(spec)
	if err != nil {
		t.Fatal(err)
	}
	if text := p.Text(); !strings.HasPrefix(text, "Our criteria.\n") || strings.Contains(text, "You are the judge") || !strings.Contains(text, "(no change)") {
		t.Errorf("with the repository's judge prompt:\n%s", text)
	}

	os.WriteFile(filepath.Join(dir, JudgeFile), []byte(" \n"), 0o644)
	if _, err := AssembleJudge(spec); err == nil || !strings.Contains(err.Error(), "the judge prompt is empty: .ralph/PROMPT_judge.md") {
		t.Errorf("an empty judge prompt: %v", err)
	}
	os.Remove(filepath.Join(dir, JudgeFile))
	os.Symlink("/etc/passwd", filepath.Join(dir, JudgeFile))
	if _, err := AssembleJudge(spec); err == nil {
		t.Error("a judge prompt linked outside the repository was read")
	}
}
