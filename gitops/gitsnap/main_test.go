package gitsnap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gittest"
)

// TestMain gives every git call in this package's tests the same empty configuration,
// and fixed dates; it removes the benchmarks' repository at the end.
func TestMain(m *testing.M) {
	code := gittest.Run(m, map[string]string{"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"})
	removeBenchRepo()
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

// snapshot runs Snapshot and fails the test if it changed the index by a single byte or tick.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	index := filepath.Join(dir, ".git", "index")
	before, beforeInfo := readIndex(t, index)
	tree, err := Snapshot(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	after, afterInfo := readIndex(t, index)
	if !bytes.Equal(before, after) || beforeInfo != afterInfo {
		t.Fatalf("Snapshot changed .git/index (%s → %s)", beforeInfo, afterInfo)
	}
	return tree
}

func readIndex(t *testing.T, path string) ([]byte, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "absent"
	}
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, fmt.Sprintf("%d bytes, mtime %s", info.Size(), info.ModTime().Format(time.RFC3339Nano))
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// keepNothing is a TakeCheckpoint keep function for tests that do not look at refs.
func keepNothing(gitops.Checkpoint) []gitops.Ref { return nil }

var hexHash = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
