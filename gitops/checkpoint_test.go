package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

var hexHash = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

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

func TestSnapshot(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string) // before the first snapshot
		change func(t *testing.T, dir string) // between the two snapshots
		same   bool
	}{
		{name: "nothing changed", same: true},
		{name: "untracked file appears", change: func(t *testing.T, dir string) { write(t, dir, "new.txt", "new\n") }},
		{name: "tracked file modified", change: func(t *testing.T, dir string) { write(t, dir, "a.txt", "ONE\n") }},
		{
			name:   "modified file modified again, same status and size",
			setup:  func(t *testing.T, dir string) { write(t, dir, "a.txt", "111\n") },
			change: func(t *testing.T, dir string) { write(t, dir, "a.txt", "222\n") },
		},
		{
			name:   "untracked file modified",
			setup:  func(t *testing.T, dir string) { write(t, dir, "new.txt", "draft\n") },
			change: func(t *testing.T, dir string) { write(t, dir, "new.txt", "final\n") },
		},
		{name: "tracked file deleted", change: func(t *testing.T, dir string) { remove(t, filepath.Join(dir, "dir", "b.txt")) }},
		{name: "file made executable", change: func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "a.txt"), 0o755) }},
		{name: "ignored file appears", change: func(t *testing.T, dir string) { write(t, dir, "debug.log", "noise\n") }, same: true},
		{
			name:   "file touched, content unchanged",
			change: func(t *testing.T, dir string) { touch(t, filepath.Join(dir, "a.txt"), time.Now().Add(time.Minute)) },
			same:   true,
		},
		{
			name:   "change staged instead of left in the work tree",
			setup:  func(t *testing.T, dir string) { write(t, dir, "a.txt", "edited\n") },
			change: func(t *testing.T, dir string) { run(t, dir, "add", "a.txt") },
			same:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := committedRepo(t)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			before := snapshot(t, dir)
			if tt.change != nil {
				tt.change(t, dir)
			}
			after := snapshot(t, dir)
			if !hexHash.MatchString(before) {
				t.Fatalf("Snapshot = %q, not a hash", before)
			}
			if same := before == after; same != tt.same {
				t.Errorf("trees before and after: %s, %s; want same=%v", before, after, tt.same)
			}
		})
	}
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

func touch(t *testing.T, path string, when time.Time) {
	t.Helper()
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotIsTheWorkTree checks the tree against what git says the work tree holds.
func TestSnapshotIsTheWorkTree(t *testing.T) {
	dir := committedRepo(t)
	headTree := run(t, dir, "rev-parse", "HEAD^{tree}")
	if got := snapshot(t, dir); got != headTree {
		t.Errorf("clean work tree: Snapshot = %s, want HEAD's tree %s", got, headTree)
	}
	write(t, dir, "a.txt", "staged\n")
	run(t, dir, "add", "a.txt")
	write(t, dir, "a.txt", "one\n")
	if got := snapshot(t, dir); got != headTree {
		t.Errorf("staged change undone in the work tree: Snapshot = %s, want HEAD's tree %s", got, headTree)
	}
	write(t, dir, "dir/new.txt", "untracked\n")
	tree := snapshot(t, dir)
	if got := run(t, dir, "cat-file", "-p", tree+":dir/new.txt"); got != "untracked" {
		t.Errorf("untracked file in the snapshot holds %q", got)
	}
	if sub := snapshot(t, filepath.Join(dir, "dir")); sub != tree {
		t.Errorf("Snapshot from a subdirectory = %s, from the top = %s", sub, tree)
	}
}

func TestSnapshotLinkedWorktree(t *testing.T) {
	dir := committedRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	write(t, wt, "a.txt", "edited in the worktree\n")
	tree, err := Snapshot(context.Background(), wt)
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "cat-file", "-p", tree+":a.txt"); got != "edited in the worktree" {
		t.Errorf("a.txt in the worktree's snapshot holds %q", got)
	}
	if main := snapshot(t, dir); main != run(t, dir, "rev-parse", "HEAD^{tree}") {
		t.Errorf("the main work tree's snapshot %s picked up the linked worktree's edit", main)
	}
}

func TestSnapshotUnbornRepository(t *testing.T) {
	dir := newRepo(t)
	const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	if got := snapshot(t, dir); got != emptyTree {
		t.Errorf("empty repository: Snapshot = %s, want the empty tree", got)
	}
	write(t, dir, "a.txt", "first file\n")
	tree := snapshot(t, dir)
	if got := run(t, dir, "cat-file", "-p", tree+":a.txt"); got != "first file" {
		t.Errorf("a.txt in the snapshot holds %q", got)
	}
}

// TestSnapshotRacilyCleanFile changes a file within the tick its index entry was written, with
// the same size and mtime: only the index file's own mtime tells git to look at its content.
func TestSnapshotRacilyCleanFile(t *testing.T) {
	dir := committedRepo(t)
	run(t, dir, "config", "core.trustctime", "false") // the kernel sets ctime; we cannot fake it
	tick := time.Now().Add(-time.Hour).Truncate(time.Second)
	file := filepath.Join(dir, "a.txt")
	write(t, dir, "a.txt", "bbb\n")
	touch(t, file, tick)
	run(t, dir, "add", "a.txt")
	touch(t, filepath.Join(dir, ".git", "index"), tick)
	write(t, dir, "a.txt", "ccc\n")
	touch(t, file, tick)

	tree := snapshot(t, dir)
	if got := run(t, dir, "cat-file", "-p", tree+":a.txt"); got != "ccc" {
		t.Errorf("a.txt in the snapshot holds %q, want the work tree's \"ccc\"", got)
	}
}

func TestSnapshotMergeConflict(t *testing.T) {
	dir := committedRepo(t)
	run(t, dir, "checkout", "-q", "-b", "side")
	write(t, dir, "a.txt", "side\n")
	run(t, dir, "commit", "-q", "-am", "side")
	run(t, dir, "checkout", "-q", "main")
	write(t, dir, "a.txt", "main\n")
	run(t, dir, "commit", "-q", "-am", "main")
	if _, err := Git(context.Background(), dir, "merge", "-q", "side"); err == nil {
		t.Fatal("merge succeeded; the test needs a conflict")
	}
	tree := snapshot(t, dir)
	if got := run(t, dir, "cat-file", "-p", tree+":a.txt"); !strings.Contains(got, "<<<<<<<") {
		t.Errorf("a.txt in the snapshot holds %q, want the conflict markers of the work tree", got)
	}
}

func TestSnapshotSkipsNestedRepositoryWithoutCommit(t *testing.T) {
	dir := committedRepo(t)
	nested := filepath.Join(dir, "nested")
	if err := os.Mkdir(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Init(context.Background(), nested, "main"); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "new.txt", "still captured\n")
	tree := snapshot(t, dir)
	if got := run(t, dir, "cat-file", "-p", tree+":new.txt"); got != "still captured" {
		t.Errorf("new.txt in the snapshot holds %q", got)
	}
}

func TestSnapshotNotRepository(t *testing.T) {
	if _, err := Snapshot(context.Background(), t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("Snapshot = %v, want ErrNotRepo", err)
	}
}

// keepNothing is a TakeCheckpoint keep function for tests that do not look at refs.
func keepNothing(Checkpoint) []Ref { return nil }
