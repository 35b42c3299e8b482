package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// HookCmd is `git ralph hook install|uninstall`.
type HookCmd struct {
	Install   HookInstallCmd   `cmd:"" help:"Install the pre-push hook."`
	Uninstall HookUninstallCmd `cmd:"" help:"Remove git-ralph's pre-push hook."`
}

// HookInstallCmd is `git ralph hook install`.
type HookInstallCmd struct {
	Force bool `help:"Keep a pre-push hook git-ralph did not write: move it to pre-push.before-ralph and run it first."`
}

// HookUninstallCmd is `git ralph hook uninstall`.
type HookUninstallCmd struct{}

// hookMarker is the line that marks a pre-push hook as git-ralph's: install rewrites and
// uninstall removes only a hook that has it.
const hookMarker = "# git-ralph-hook: pre-push"

// keptSuffix names where install --force moves a hook that was not git-ralph's; the hook
// runs it first, and uninstall puts it back.
const keptSuffix = ".before-ralph"

// hookFiles are the pre-push hook and the place of the hook it replaced, in the hooks
// directory git uses (core.hooksPath is respected).
type hookFiles struct {
	root string // the work tree, to show paths relative to it
	hook string
	kept string
}

// hookKind is what stands at the hook's path.
type hookKind int

const (
	hookMissing hookKind = iota
	hookOurs
	hookForeign
)

// findHookFiles locates the hooks directory of the repository the command runs in.
func findHookFiles(ctx context.Context) (hookFiles, error) {
	root, err := repoRoot(ctx)
	if err != nil {
		return hookFiles{}, err
	}
	dir, err := gitops.HooksDir(ctx, root)
	if err != nil {
		return hookFiles{}, err
	}
	hook := filepath.Join(dir, "pre-push")
	return hookFiles{root: root, hook: hook, kept: hook + keptSuffix}, nil
}

// Run writes git-ralph's pre-push hook, keeping a foreign hook only with --force.
func (c *HookInstallCmd) Run(ctx context.Context, s Streams) error {
	h, err := findHookFiles(ctx)
	if err != nil {
		return err
	}
	kind, err := h.kind()
	if err != nil {
		return err
	}
	moved := false
	if kind == hookForeign {
		if err := h.keepForeign(c.Force); err != nil {
			return err
		}
		moved = true
	}
	program := ralphProgram()
	chained := exists(h.kept)
	if err := h.write(hookScript(program, chained)); err != nil {
		if moved {
			os.Rename(h.kept, h.hook) // put the user's hook back as it was
		}
		return err
	}
	h.reportInstalled(s, kind, program, chained, moved)
	return nil
}

// keepForeign moves a hook git-ralph did not write out of the way, to be chained; without
// force it refuses and says how to go on.
func (h hookFiles) keepForeign(force bool) error {
	if !force {
		return withHint(fmt.Errorf("%s exists and was not written by git-ralph; it was left alone", h.show(h.hook)),
			"run 'git ralph hook install --force' to keep it: it moves to %s and runs before git-ralph's checks\n"+
				"or add 'git ralph pre-push \"$@\"' to your hook yourself (it reads the same stdin)", filepath.Base(h.kept))
	}
	if exists(h.kept) {
		return withHint(fmt.Errorf("cannot keep your pre-push hook: %s exists already", h.show(h.kept)),
			"move or delete %s, then install again", h.show(h.kept))
	}
	if err := os.Rename(h.hook, h.kept); err != nil {
		return fmt.Errorf("keeping your pre-push hook: %w", err)
	}
	return nil
}

// reportInstalled says what install did.
func (h hookFiles) reportInstalled(s Streams, before hookKind, program string, chained, moved bool) {
	verb := "installed"
	if before == hookOurs {
		verb = "updated"
	}
	runs := "'git ralph pre-push'"
	if program != "" {
		runs = fmt.Sprintf("%s pre-push (or 'git ralph pre-push' if it moves)", program)
	}
	fmt.Fprintf(s.Stdout, "%s the pre-push hook %s: it runs %s\n", verb, h.show(h.hook), runs)
	switch {
	case moved:
		fmt.Fprintf(s.Stdout, "kept your previous hook as %s: it runs first, and its failure stops the push\n", h.show(h.kept))
	case chained:
		fmt.Fprintf(s.Stdout, "it runs %s first, and its failure stops the push\n", h.show(h.kept))
	}
}

// Run removes git-ralph's pre-push hook and puts back the hook it replaced, if any.
func (c *HookUninstallCmd) Run(ctx context.Context, s Streams) error {
	h, err := findHookFiles(ctx)
	if err != nil {
		return err
	}
	kind, err := h.kind()
	if err != nil {
		return err
	}
	switch kind {
	case hookForeign:
		return withHint(fmt.Errorf("%s was not written by git-ralph; it was left alone", h.show(h.hook)),
			"delete it yourself if you no longer want it")
	case hookOurs:
		if err := os.Remove(h.hook); err != nil {
			return fmt.Errorf("removing the pre-push hook: %w", err)
		}
		fmt.Fprintf(s.Stdout, "removed the pre-push hook %s\n", h.show(h.hook))
	case hookMissing:
		if !exists(h.kept) {
			fmt.Fprintf(s.Stdout, "no pre-push hook at %s: nothing to remove\n", h.show(h.hook))
			return nil
		}
	}
	return h.restoreKept(s)
}

// restoreKept moves the hook that install --force kept back in place.
func (h hookFiles) restoreKept(s Streams) error {
	if !exists(h.kept) {
		return nil
	}
	if err := os.Rename(h.kept, h.hook); err != nil {
		return fmt.Errorf("restoring your previous pre-push hook: %w", err)
	}
	fmt.Fprintf(s.Stdout, "restored your previous hook %s\n", h.show(h.hook))
	return nil
}

// kind tells git-ralph's hook (it has hookMarker) from anyone else's.
func (h hookFiles) kind() (hookKind, error) {
	info, err := os.Lstat(h.hook)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return hookMissing, nil
	case err != nil:
		return 0, fmt.Errorf("reading the pre-push hook: %w", err)
	case info.IsDir():
		return 0, withHint(fmt.Errorf("%s is a directory, not a hook", h.show(h.hook)), "move it away, then install again")
	}
	f, err := repofile.Open(h.hook, h.hook) // core.hooksPath may point into the work tree
	if err != nil {
		return hookForeign, nil // e.g. a dangling symlink or a FIFO: someone's, not ours
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if strings.TrimSpace(lines.Text()) == hookMarker {
			return hookOurs, nil
		}
	}
	return hookForeign, nil
}

// write puts script in place atomically and executable, creating the hooks directory
// (core.hooksPath may name one that does not exist yet).
func (h hookFiles) write(script string) error {
	dir := filepath.Dir(h.hook)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the hooks directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".pre-push.ralph-*")
	if err != nil {
		return fmt.Errorf("writing the pre-push hook: %w", err)
	}
	_, err = f.WriteString(script)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(f.Name(), h.hook)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing the pre-push hook: %w", err)
	}
	return nil
}

// show is path as the user knows it: relative to the work tree when inside it.
func (h hookFiles) show(path string) string {
	if rel, err := filepath.Rel(h.root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// exists reports whether anything, even a dangling symlink, stands at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// ralphProgram is the absolute path of this git-ralph for the hook to run, so the hook
// works whatever PATH the pushing process has (an IDE, a GUI client) and saves starting
// `git` once more. It prefers the path git found on PATH (a symlink that survives package
// upgrades) when that is this very program; "" when no path fits, and the hook then runs
// `git ralph`.
func ralphProgram() string {
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
	fmt.Fprintf(&b, "ralph=%s\n", shellQuote(program))
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
