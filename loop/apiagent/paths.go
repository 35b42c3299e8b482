package apiagent

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// local is path p of the model as a path relative to the work tree, refused when it would
// leave it. An absolute path inside the work tree is taken as its relative one. os.Root
// refuses the rest on use: a symbolic link that points out of the work tree.
func (t *toolbox) local(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) {
		rel, ok := within(t.dir, p)
		if !ok {
			rel, ok = within(t.realDir, p)
		}
		if !ok {
			return "", refuse("%s is outside the work tree %s: give a path inside it, relative to its top", p, t.dir)
		}
		p = rel
	}
	p = filepath.Clean(p)
	if p != "." && !filepath.IsLocal(p) {
		return "", refuse("%s is outside the work tree: give a path inside it, relative to its top", p)
	}
	return p, nil
}

// within is absolute path p relative to dir, when it is inside it.
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, filepath.Clean(p))
	return rel, err == nil && (rel == "." || filepath.IsLocal(rel))
}

// writable is p (see local) when a tool may write it: never a .git at any depth, nor
// inside one, whose files git alone changes (commit through the bash tool) — a
// submodule's .git file names the directory git takes for its repository, whose config
// (core.fsmonitor) git-ralph's own `git status` would run — and never through a symbolic
// link, which could name .git by another path.
func (t *toolbox) writable(p string) (string, error) {
	rel, err := t.local(p)
	if err != nil {
		return "", err
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for _, part := range parts {
		if isGitDir(part) {
			return "", refuse("%s is inside .git or names one (%s), which only git may change: use git commands through the bash tool", p, part)
		}
	}
	for i := range parts {
		prefix := filepath.Join(parts[:i+1]...)
		info, err := t.root.Lstat(prefix)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", t.pathError(p, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return "", refuse("%s is a symbolic link: the file tools do not write through links; write the file it points to by its own path", prefix)
		}
	}
	return rel, nil
}

// isGitDir reports whether one name of a path is .git, as a case-insensitive file system
// (macOS, Windows) would read it, trailing dots and spaces included.
func isGitDir(name string) bool {
	return strings.EqualFold(strings.TrimRight(name, ". "), ".git")
}

// pathError words an error of os.Root about path p for the model.
func (t *toolbox) pathError(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse("%s does not exist", p)
	case strings.Contains(err.Error(), "escapes"):
		return refuse("%s is outside the work tree (a path may not leave it, nor a symbolic link point out of it)", p)
	}
	return refuse("%s: %v", p, err)
}
