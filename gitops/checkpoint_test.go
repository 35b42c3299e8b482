package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-ralph/git-ralph/gitops/gittest"
)

// TestMain gives every git call in this package's tests the same empty configuration,
// and fixed dates.
func TestMain(m *testing.M) {
	code := gittest.Run(m, map[string]string{"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"})
	os.Exit(code)
}

// run is Git for test setup: it fails the test on error.
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Git(context.Background(), dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes an empty repository on branch main.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := Init(context.Background(), dir, "main"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// committedRepo makes a repository whose one commit holds a.txt, dir/b.txt and a .gitignore for *.log.
func committedRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	write(t, dir, "a.txt", "one\n")
	write(t, dir, "dir/b.txt", "two\n")
	write(t, dir, ".gitignore", "*.log\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func TestHead(t *testing.T) {
	ctx := context.Background()
	t.Run("normal", func(t *testing.T) {
		dir := committedRepo(t)
		want := run(t, dir, "rev-parse", "HEAD")
		if got, err := Head(ctx, dir); err != nil || got != want {
			t.Fatalf("Head = %q, %v; want %q", got, err, want)
		}
		if _, ok := headGoGit(dir); !ok {
			t.Error("go-git could not read HEAD of a plain repository; every Head call would start a process")
		}
	})
	t.Run("subdirectory", func(t *testing.T) {
		dir := committedRepo(t)
		if got, err := Head(ctx, filepath.Join(dir, "dir")); err != nil || got != run(t, dir, "rev-parse", "HEAD") {
			t.Fatalf("Head = %q, %v", got, err)
		}
	})
	t.Run("unborn", func(t *testing.T) {
		dir := newRepo(t)
		write(t, dir, "a.txt", "staged, not committed\n")
		run(t, dir, "add", "a.txt")
		if got, err := Head(ctx, dir); err != nil || got != "" {
			t.Fatalf("Head = %q, %v; want \"\", nil", got, err)
		}
	})
	t.Run("detached", func(t *testing.T) {
		dir := committedRepo(t)
		first := run(t, dir, "rev-parse", "HEAD")
		write(t, dir, "a.txt", "second\n")
		run(t, dir, "commit", "-q", "-am", "second")
		run(t, dir, "checkout", "-q", "--detach", first)
		if got, err := Head(ctx, dir); err != nil || got != first {
			t.Fatalf("Head = %q, %v; want %q", got, err, first)
		}
	})
	t.Run("linked worktree", func(t *testing.T) {
		dir := committedRepo(t)
		first := run(t, dir, "rev-parse", "HEAD")
		write(t, dir, "a.txt", "second\n")
		run(t, dir, "commit", "-q", "-am", "second")
		wt := filepath.Join(t.TempDir(), "wt")
		run(t, dir, "worktree", "add", "-q", "-b", "side", wt, first)
		if got, err := Head(ctx, wt); err != nil || got != first {
			t.Fatalf("Head(worktree) = %q, %v; want %q", got, err, first)
		}
		if got, ok := headGoGit(wt); !ok || got != first {
			t.Errorf("go-git read %q, %v in a linked worktree; want %q", got, ok, first)
		}
	})
	t.Run("sha256 falls back to git", func(t *testing.T) {
		dir := t.TempDir()
		run(t, dir, "init", "-q", "--object-format=sha256", "--initial-branch=main")
		if got, err := Head(ctx, dir); err != nil || got != "" {
			t.Fatalf("Head(unborn sha256) = %q, %v", got, err)
		}
		write(t, dir, "a.txt", "one\n")
		run(t, dir, "add", "a.txt")
		run(t, dir, "commit", "-q", "-m", "first")
		want := run(t, dir, "rev-parse", "HEAD")
		if got, err := Head(ctx, dir); err != nil || got != want || len(got) != 64 {
			t.Fatalf("Head = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("GIT_DIR is honoured", func(t *testing.T) {
		dir, other := committedRepo(t), committedRepo(t)
		write(t, other, "a.txt", "other\n")
		run(t, other, "commit", "-q", "-am", "other")
		t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
		if got, err := Head(ctx, dir); err != nil || got != run(t, other, "rev-parse", "HEAD") {
			t.Fatalf("Head = %q, %v; want the HEAD of GIT_DIR", got, err)
		}
	})
	t.Run("not a repository", func(t *testing.T) {
		if got, err := Head(ctx, t.TempDir()); !errors.Is(err, ErrNotRepo) {
			t.Fatalf("Head = %q, %v; want ErrNotRepo", got, err)
		}
	})
}
