package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/help"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

// ManCmd is `git ralph man`. git turns `git ralph --help` into `git help ralph`, which
// opens the man page git-ralph(1); this command writes that page from the CLI model.
type ManCmd struct {
	Install bool   `help:"Write the page to DIR/man1/git-ralph.1 instead of printing it."`
	Dir     string `help:"Man directory for --install (default: share/man beside the bin directory holding git-ralph, which man finds through PATH)." placeholder:"DIR" type:"path"`
}

// Run prints or installs the man page.
func (c *ManCmd) Run(s Streams, k *kong.Kong) error {
	if !c.Install {
		return help.WriteManPage(s.Stdout, k.Model, version)
	}
	dir, err := c.manDir()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "man1", "git-ralph.1")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return hints.Wrap(fmt.Errorf("creating %s: %w", filepath.Dir(path), err), "pass --dir with a man directory you can write to")
	}
	f, err := os.Create(path)
	if err != nil {
		return hints.Wrap(fmt.Errorf("writing the man page: %w", err), "pass --dir with a man directory you can write to")
	}
	defer f.Close()
	if err := help.WriteManPage(f, k.Model, version); err != nil {
		return err
	}
	fmt.Fprintln(s.Stdout, installedLine(path, dir, c.Dir == ""))
	if note := manPathNote(os.Getenv("MANPATH"), dir); note != "" {
		fmt.Fprintf(s.Stdout, "%s\n", note)
	}
	return f.Close()
}

// installedLine says where the page went and whether 'git help ralph' opens it now: only
// when man searches dir. man-db's manpath says where man searches; without it, the default
// directory is searched unless MANPATH leaves man's own search out, and any other only when
// MANPATH lists it.
func installedLine(path, dir string, isDefault bool) string {
	searched, known := manSearches(dir)
	if !known {
		searched = manPathLists(os.Getenv("MANPATH"), dir) || isDefault && manPathNote(os.Getenv("MANPATH"), dir) == ""
	}
	if searched {
		return fmt.Sprintf("installed %s; 'git help ralph' and 'git ralph --help' now open it", path)
	}
	return fmt.Sprintf("installed %s; man does not search %s, so 'git help ralph' opens it only once you add it to MANPATH\n"+
		"(export MANPATH=\"$MANPATH:%s\"); 'man -l %s' opens it meanwhile", path, dir, dir, path)
}

// manSearches asks man-db's manpath whether man searches dir; known is false when manpath
// cannot say (another man, none at all).
func manSearches(dir string) (searched, known bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "manpath", "-q").Output()
	if err != nil {
		return false, false
	}
	return manPathLists(strings.TrimSpace(string(out)), dir), true
}

// manPathLists reports whether the search path list (as MANPATH is written) names dir.
func manPathLists(list, dir string) bool {
	want := canonical(dir)
	for _, entry := range filepath.SplitList(list) {
		if entry != "" && canonical(entry) == want {
			return true
		}
	}
	return false
}

// canonical is path cleaned and, where it exists, with its symbolic links resolved.
func canonical(path string) string {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		return resolved
	}
	return filepath.Clean(path)
}

// manPathNote says how to make man find dir when MANPATH is set: man then searches only
// the directories it lists, unless an empty entry (a leading or trailing ':', or '::')
// stands for the default search, which finds share/man beside each bin directory on PATH.
func manPathNote(manpath, dir string) string {
	if manpath == "" {
		return ""
	}
	for _, entry := range filepath.SplitList(manpath) {
		if entry == "" || filepath.Clean(entry) == filepath.Clean(dir) {
			return ""
		}
	}
	return fmt.Sprintf("note: MANPATH is set, so man looks only where it says: add %s to it (export MANPATH=\"$MANPATH:%s\"),\n"+
		"or end it with ':' to keep man's own search as well", dir, dir)
}

// manDir is DIR, or ../share/man from the executable's directory: man-db adds that
// directory to its search path for every bin directory on PATH.
func (c *ManCmd) manDir() (string, error) {
	if c.Dir != "" {
		return c.Dir, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding git-ralph's executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Join(filepath.Dir(filepath.Dir(exe)), "share", "man"), nil
}
