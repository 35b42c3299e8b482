package prompts

import (
	"embed"
	"io/fs"
)

// defaults holds the built-in prompts that `git ralph init` writes and `git ralph demo`
// uses. The repository's own top-level PROMPT_plan.md and PROMPT_build.md link here.
//
//go:embed defaults/PROMPT_*.md
var defaults embed.FS

// Default returns the built-in prompt for mode, and false when there is none.
func Default(mode string) (string, bool) {
	data, err := fs.ReadFile(defaults, "defaults/"+FileName(mode))
	return string(data), err == nil
}

// DefaultModes are the modes that have a built-in prompt.
var DefaultModes = []string{"plan", "build"}
