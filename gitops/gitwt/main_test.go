package gitwt

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
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
	out, err := gitops.Git(context.Background(), dir, args...)
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
	if err := gitops.Init(context.Background(), dir, "main"); err != nil {
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
