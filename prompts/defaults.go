package prompts

import (
	"embed"
	"io/fs"
)

// defaults holds the built-in prompts that `git ralph init` writes and `git ralph demo`
// uses. The repository's own top-level PROMPT_plan.md and PROMPT_build.md link here.
//
//go:embed defaults/PROMPT_*.md defaults/TASK.md
var defaults embed.FS

// Default returns the built-in prompt for mode, and false when there is none.
func Default(mode string) (string, bool) {
	data, err := fs.ReadFile(defaults, "defaults/"+FileName(mode))
	return string(data), err == nil
}

// DefaultModes are the modes whose built-in prompt `init` writes.
var DefaultModes = []string{"plan", "build"}

// builtinOnly is the built-in prompt of a mode that git-ralph itself starts (merge, for
// `git ralph merge --resolve`): used when the repository has no PROMPT_<mode>.md of its
// own, and never written by `init`.
func builtinOnly(mode string) (string, bool) {
	if mode != "merge" {
		return "", false
	}
	return Default(mode)
}
