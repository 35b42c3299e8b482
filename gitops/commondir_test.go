package gitops

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TopCommonDir reads without git what git answers: from the main work tree, a linked
// one (.git file, relative commondir), and a .git file with a relative gitdir.
func TestTopCommonDirAsGitSaysIt(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "--detach", wt)
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Mkdir(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, moved, "init", "-q", "--separate-git-dir", filepath.Join(moved, "store"))
	if err := os.WriteFile(filepath.Join(moved, ".git"), []byte("gitdir: store\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, top := range []string{dir, wt, moved} {
		want, err := CommonDir(ctx, top)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := commonDirFromFiles(top)
		if !ok || got != want {
			t.Errorf("commonDirFromFiles(%s) = %q, %v; git says %q", top, got, ok, want)
		}
	}
	if _, ok := commonDirFromFiles(filepath.Join(dir, "dir")); ok {
		t.Error("a subdirectory has no .git: git must be asked")
	}
}
