package gitops

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// rootByGit is what `git rev-parse --show-toplevel` says in dir ("" when it fails).
func rootByGit(dir string) string {
	out, err := Git(context.Background(), dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	return out
}

// Root reads from the files what git answers where the layout is plain, and leaves the
// rest to git.
func TestRootFromFilesAsGitSaysIt(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "--detach", wt)
	os.MkdirAll(filepath.Join(wt, "sub", "deeper"), 0o755)
	links := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "dir"), filepath.Join(links, "link")); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "moved")
	os.Mkdir(moved, 0o755)
	run(t, moved, "init", "-q", "--separate-git-dir", filepath.Join(moved, "store"))
	os.WriteFile(filepath.Join(moved, ".git"), []byte("gitdir: store\n"), 0o644)
	for _, at := range []string{dir, filepath.Join(dir, "dir"), wt, filepath.Join(wt, "sub", "deeper"), filepath.Join(links, "link"), moved} {
		got, ok := rootFromFiles(at)
		if want := rootByGit(at); !ok || got != want {
			t.Errorf("rootFromFiles(%s) = %q, %v; git says %q", at, got, ok, want)
		}
		if got, err := Root(ctx, at); err != nil || got != rootByGit(at) {
			t.Errorf("Root(%s) = %q, %v", at, got, err)
		}
	}
}

func TestRootAsksGitWhereTheLayoutIsNotPlain(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	gitDir := filepath.Join(dir, ".git")
	outside := t.TempDir()
	// an empty .git directory git passes over, looking further up
	hollow := filepath.Join(dir, "dir", "hollow")
	os.MkdirAll(filepath.Join(hollow, ".git"), 0o755)
	// a repository whose configuration names its work tree elsewhere
	named := filepath.Join(t.TempDir(), "named")
	os.Mkdir(named, 0o755)
	run(t, named, "init", "-q")
	run(t, named, "config", "core.worktree", outside)
	for _, at := range []string{gitDir, filepath.Join(gitDir, "refs"), outside, hollow, named} {
		if got, ok := rootFromFiles(at); ok {
			t.Errorf("rootFromFiles(%s) = %q: git must be asked (it says %q)", at, got, rootByGit(at))
		}
	}
	if got, err := Root(ctx, hollow); err != nil || got != dir {
		t.Errorf("Root in a directory with an empty .git = %q, %v; want %s, as git finds it", got, err, dir)
	}
	if _, err := Root(ctx, gitDir); err == nil {
		t.Error("Root inside the .git directory found a work tree")
	}
	// the ceiling: the search never goes up into it
	t.Setenv("GIT_CEILING_DIRECTORIES", dir)
	if got, ok := rootFromFiles(filepath.Join(dir, "dir")); ok {
		t.Errorf("rootFromFiles went up into the ceiling %s: %q", dir, got)
	}
	if got, ok := rootFromFiles(dir); !ok || got != dir {
		t.Errorf("rootFromFiles at the ceiling itself = %q, %v; want %s (git looks there)", got, ok, dir)
	}
	t.Setenv("GIT_DIR", gitDir)
	if _, ok := rootFromFiles(dir); ok {
		t.Error("rootFromFiles read the files while GIT_DIR is set")
	}
}
