package gitwt

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

// checkedOutByGit is what CheckedOut answers, from `git worktree list`.
func checkedOutByGit(t *testing.T, dir, branch string) []string {
	t.Helper()
	list, err := List(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, wt := range list {
		if wt.Branch == branch && !wt.Bare && !wt.Prunable {
			paths = append(paths, wt.Path)
		}
	}
	return paths
}

func TestCheckedOutReadsTheFilesAsGitListsThem(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common, err := gitops.TopCommonDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	place := t.TempDir()
	if err := AddOnBranch(ctx, dir, filepath.Join(place, "x"), "ralph/x", "HEAD"); err != nil {
		t.Fatal(err)
	}
	if err := Add(ctx, dir, filepath.Join(place, "detached"), "HEAD"); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "worktree", "add", "--quiet", "--force", filepath.Join(place, "main again"), "main")
	if err := AddOnBranch(ctx, dir, filepath.Join(place, "gone"), "ralph/gone", "HEAD"); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(place, "gone")) // git lists it as prunable
	for _, branch := range []string{"refs/heads/main", "refs/heads/ralph/x", "refs/heads/ralph/gone", "refs/heads/none"} {
		got, ok := checkedOutFromFiles(common, branch)
		if !ok {
			t.Fatalf("%s: the files were not read", branch)
		}
		if want := checkedOutByGit(t, dir, branch); !slices.Equal(got, want) {
			t.Errorf("%s: read %q from the files, git lists %q", branch, got, want)
		}
	}
	if got, _ := checkedOutFromFiles(common, "refs/heads/main"); len(got) != 2 {
		t.Errorf("main is checked out in %q, want the main tree and 'main again'", got)
	}
}

func TestCheckedOutAsksGitWhenUnsure(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common, err := gitops.TopCommonDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	// a locked worktree whose directory is gone (a drive not mounted): git lists it
	locked := filepath.Join(t.TempDir(), "locked")
	run(t, dir, "worktree", "add", "--quiet", "--force", "--lock", locked, "main")
	os.RemoveAll(locked)
	if _, ok := checkedOutFromFiles(common, "refs/heads/main"); ok {
		t.Error("a locked worktree whose directory is gone was read from the files")
	}
	paths, err := CheckedOut(ctx, dir, common, "refs/heads/main")
	if want := checkedOutByGit(t, dir, "refs/heads/main"); err != nil || !slices.Equal(paths, want) || len(want) != 2 {
		t.Errorf("CheckedOut = %q, %v; want %q, the main tree and the locked one", paths, err, want)
	}
	// a configuration that makes the repository bare: its main tree has nothing checked out
	run(t, dir, "config", "core.bare", "true")
	if _, ok := checkedOutFromFiles(common, "refs/heads/main"); ok {
		t.Error("a repository made bare by its configuration was read from the files")
	}
	paths, err = CheckedOut(ctx, dir, common, "refs/heads/main")
	if err != nil || slices.Contains(paths, filepath.Dir(common)) {
		t.Errorf("CheckedOut = %q, %v; want the main tree of a bare repository left out", paths, err)
	}
}

func TestHeadOn(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		head   string
		on, ok bool
	}{
		{"ref: refs/heads/main\n", true, true},
		{"ref: refs/heads/other\n", false, true},
		{"0123456789abcdef0123456789abcdef01234567\n", false, true},
		{"ref: main\n", false, false},
		{"garbage\n", false, false},
		{"", false, false},
	} {
		os.WriteFile(filepath.Join(dir, "HEAD"), []byte(c.head), 0o644)
		if on, ok := headOn(filepath.Join(dir, "HEAD"), "refs/heads/main"); on != c.on || ok != c.ok {
			t.Errorf("headOn(%q) = %v, %v; want %v, %v", c.head, on, ok, c.on, c.ok)
		}
	}
}

// A main repository whose configuration puts its work tree elsewhere (core.worktree):
// the files answer as git lists it, or leave it to git.
func TestCheckedOutFollowsCoreWorktree(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common, err := gitops.TopCommonDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	run(t, dir, "config", "core.worktree", elsewhere)
	want := checkedOutByGit(t, dir, "refs/heads/main")
	if got, ok := checkedOutFromFiles(common, "refs/heads/main"); ok && !slices.Equal(got, want) {
		t.Errorf("read %q from the files, git lists %q", got, want)
	}
}
