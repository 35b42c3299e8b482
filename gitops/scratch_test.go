package gitops

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addedScratch adds an empty detached worktree at commit, filled with its files, and
// returns its path and administrative directory.
func addedScratch(t *testing.T, dir, commit string) (path, admin string) {
	t.Helper()
	ctx := context.Background()
	path = filepath.Join(t.TempDir(), ".merge-x")
	if err := AddEmptyWorktree(ctx, dir, path, commit); err != nil {
		t.Fatal(err)
	}
	if err := ResetWorktree(ctx, path, commit); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	admin = strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir: "))
	if err != nil || filepath.Dir(admin) != filepath.Join(dir, ".git", "worktrees") {
		t.Fatalf("git put the worktree's files elsewhere: %q %v", data, err)
	}
	return path, admin
}

func TestRemoveScratchWorktree(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common := filepath.Join(dir, ".git")
	path, admin := addedScratch(t, dir, "HEAD")
	// what a validation leaves: build output, a read-only file
	write(t, path, "out/bin.o", "built\n")
	os.Chmod(filepath.Join(path, "a.txt"), 0o444)

	if err := RemoveScratchWorktree(ctx, dir, common, path); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{path, admin, filepath.Join(common, "worktrees")} {
		if _, err := os.Lstat(gone); err == nil {
			t.Errorf("%s is still there", gone)
		}
	}
	if list := run(t, dir, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("git still lists the scratch worktree:\n%s", list)
	}
}

func TestRemoveScratchWorktreeTrustsNoRewrittenGitFile(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common := filepath.Join(dir, ".git")
	victim := t.TempDir()
	write(t, victim, "precious.txt", "keep me\n")
	// a worktree of the user's, named other
	if err := AddEmptyWorktree(ctx, dir, filepath.Join(t.TempDir(), "other"), "HEAD"); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(common, "worktrees", "other")
	for name, gitFile := range map[string]string{
		"names a directory outside":      "gitdir: " + victim + "\n",
		"names the worktrees' directory": "gitdir: " + filepath.Join(common, "worktrees") + "\n",
		"names another worktree's files": "gitdir: " + filepath.Join(common, "worktrees", "other") + "\n",
		"climbs out of the worktrees":    "gitdir: " + filepath.Join(common, "worktrees", "..", "..") + "\n",
		"is relative":                    "gitdir: ../victim\n",
	} {
		t.Run(name, func(t *testing.T) {
			path, admin := addedScratch(t, dir, "HEAD")
			write(t, path, ".git", gitFile) // the validation rewrote it

			RemoveScratchWorktree(ctx, dir, common, path)
			if _, err := os.Stat(filepath.Join(victim, "precious.txt")); err != nil {
				t.Fatalf("a file outside the worktree was removed: %v", err)
			}
			if _, err := os.Stat(filepath.Join(other, "gitdir")); err != nil {
				t.Fatalf("another worktree's files were removed: %v", err)
			}
			if _, err := os.Lstat(path); err == nil {
				t.Errorf("the scratch worktree %s is still there", path)
			}
			if _, err := os.Lstat(admin); err == nil {
				t.Errorf("its administrative directory %s is still there", admin)
			}
		})
	}
}
