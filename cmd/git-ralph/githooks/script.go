package githooks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
)

// hookMarker is the line that marks a pre-push hook as git-ralph's: install rewrites and
// uninstall removes only a hook that has it.
const hookMarker = "# git-ralph-hook: pre-push"

// keptSuffix names where install --force moves a hook that was not git-ralph's; the hook
// runs it first, and uninstall puts it back.
const keptSuffix = ".before-ralph"

// Program is the absolute path of this git-ralph for the hook to run, so the hook
// works whatever PATH the pushing process has (an IDE, a GUI client) and saves starting
// `git` once more. It prefers the path git found on PATH (a symlink that survives package
// upgrades) when that is this very program; "" when no path fits, and the hook then runs
// `git ralph`.
func Program() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if found, err := exec.LookPath("git-ralph"); err == nil {
		found, _ = filepath.Abs(found)
		if sameFile(found, exe) {
			return found
		}
	}
	if filepath.Base(exe) == "git-ralph" {
		return exe
	}
	return "" // e.g. a test binary, which must not be run as git-ralph
}

// sameFile reports whether both paths name the same existing file.
func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// hookScript is the pre-push hook. It runs program (or `git ralph` when program is
// missing) as `pre-push` with git's arguments and stdin. When chained, it first runs the
// kept hook, next to itself, with the same arguments and a copy of the same stdin, and
// stops the push when that fails.
func hookScript(program string, chained bool) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n" + hookMarker + "\n")
	b.WriteString("# Written by 'git ralph hook install'; 'git ralph hook uninstall' removes it")
	if chained {
		b.WriteString(" and puts\n# back the hook it runs first")
	}
	b.WriteString(".\n# 'git ralph pre-push' refuses to push a branch while a loop is mid-iteration on it\n")
	b.WriteString("# and runs the configured validate command on the commits being pushed.\n")
	b.WriteString("# Skip it once with 'git push --no-verify'.\n")
	fmt.Fprintf(&b, "ralph=%s\n", display.ShellQuote(program))
	if !chained {
		b.WriteString("if [ -x \"$ralph\" ]; then exec \"$ralph\" pre-push \"$@\"; fi\n")
		b.WriteString("exec git ralph pre-push \"$@\"\n")
		return b.String()
	}
	b.WriteString("# git gives the refs on stdin, which can be read once: keep them for both hooks\n")
	b.WriteString("refs=$(cat)\n")
	b.WriteString("feed() { [ -z \"$refs\" ] || printf '%s\\n' \"$refs\"; }\n")
	fmt.Fprintf(&b, "before=\"$(dirname \"$0\")/pre-push%s\"\n", keptSuffix)
	b.WriteString("if [ -x \"$before\" ]; then\n")
	b.WriteString("\tfeed | \"$before\" \"$@\" || { status=$?; echo \"git-ralph: $before failed (exit $status)\" >&2; exit $status; }\n")
	b.WriteString("fi\n")
	b.WriteString("if [ -x \"$ralph\" ]; then feed | \"$ralph\" pre-push \"$@\"; else feed | git ralph pre-push \"$@\"; fi\n")
	return b.String()
}
