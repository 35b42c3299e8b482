package githooks

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Hook is the pre-push hook and the place of the hook it replaced, in the hooks
// directory git uses (core.hooksPath is respected).
type Hook struct {
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

// Installed says what Install did, with paths as the user knows them.
type Installed struct {
	Updated bool   // git-ralph's hook stood there already and was rewritten
	Program string // what the hook runs; "" when it runs `git ralph`
	Hook    string // the hook
	Kept    string // the hook it runs first; "" when there is none
	Moved   bool   // Kept was the user's hook until now, moved by force
}

// Uninstalled says what Uninstall did; neither Removed nor Restored means there was
// nothing to remove.
type Uninstalled struct {
	Hook     string // the hook, as the user knows its path
	Removed  bool   // git-ralph's hook was removed
	Restored bool   // the hook it replaced is back in its place
}

// Locate finds the pre-push hook of the work tree root.
func Locate(ctx context.Context, root string) (Hook, error) {
	dir, err := gitops.HooksDir(ctx, root)
	if err != nil {
		return Hook{}, err
	}
	hook := filepath.Join(dir, "pre-push")
	return Hook{root: root, hook: hook, kept: hook + keptSuffix}, nil
}

// Install writes git-ralph's pre-push hook, running program. A hook git-ralph did not
// write is kept only with force: it moves aside and the new hook runs it first.
func (h Hook) Install(force bool, program string) (Installed, error) {
	kind, err := h.kind()
	if err != nil {
		return Installed{}, err
	}
	moved := false
	if kind == hookForeign {
		if err := h.keepForeign(force); err != nil {
			return Installed{}, err
		}
		moved = true
	}
	chained := exists(h.kept)
	if err := h.write(hookScript(program, chained)); err != nil {
		if moved {
			os.Rename(h.kept, h.hook) // put the user's hook back as it was
		}
		return Installed{}, err
	}
	done := Installed{Updated: kind == hookOurs, Program: program, Hook: h.show(h.hook), Moved: moved}
	if chained {
		done.Kept = h.show(h.kept)
	}
	return done, nil
}

// keepForeign moves a hook git-ralph did not write out of the way, to be chained; without
// force it refuses and says how to go on.
func (h Hook) keepForeign(force bool) error {
	if !force {
		return hints.Wrap(fmt.Errorf("%s exists and was not written by git-ralph; it was left alone", h.show(h.hook)),
			"run 'git ralph hook install --force' to keep it: it moves to %s and runs before git-ralph's checks\n"+
				"or add 'git ralph pre-push \"$@\"' to your hook yourself (it reads the same stdin)", filepath.Base(h.kept))
	}
	if exists(h.kept) {
		return hints.Wrap(fmt.Errorf("cannot keep your pre-push hook: %s exists already", h.show(h.kept)),
			"move or delete %s, then install again", h.show(h.kept))
	}
	if err := os.Rename(h.hook, h.kept); err != nil {
		return fmt.Errorf("keeping your pre-push hook: %w", err)
	}
	return nil
}

// Uninstall removes git-ralph's pre-push hook and puts back the hook it replaced, if
// any. A hook git-ralph did not write is left alone. What was done is reported even
// when a later step fails.
func (h Hook) Uninstall() (Uninstalled, error) {
	done := Uninstalled{Hook: h.show(h.hook)}
	kind, err := h.kind()
	if err != nil {
		return done, err
	}
	switch kind {
	case hookForeign:
		return done, hints.Wrap(fmt.Errorf("%s was not written by git-ralph; it was left alone", h.show(h.hook)),
			"delete it yourself if you no longer want it")
	case hookOurs:
		if err := os.Remove(h.hook); err != nil {
			return done, fmt.Errorf("removing the pre-push hook: %w", err)
		}
		done.Removed = true
	}
	if !exists(h.kept) {
		return done, nil
	}
	if err := os.Rename(h.kept, h.hook); err != nil {
		return done, fmt.Errorf("restoring your previous pre-push hook: %w", err)
	}
	done.Restored = true
	return done, nil
}

// kind tells git-ralph's hook (it has hookMarker) from anyone else's.
func (h Hook) kind() (hookKind, error) {
	info, err := os.Lstat(h.hook)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return hookMissing, nil
	case err != nil:
		return 0, fmt.Errorf("reading the pre-push hook: %w", err)
	case info.IsDir():
		return 0, hints.Wrap(fmt.Errorf("%s is a directory, not a hook", h.show(h.hook)), "move it away, then install again")
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
func (h Hook) write(script string) error {
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
func (h Hook) show(path string) string {
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
