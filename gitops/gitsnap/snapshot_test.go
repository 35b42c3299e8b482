package gitsnap

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
)

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
	if _, err := gitops.Git(context.Background(), dir, "merge", "-q", "side"); err == nil {
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
	if err := gitops.Init(context.Background(), nested, "main"); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "new.txt", "still captured\n")
	tree := snapshot(t, dir)
	if got := run(t, dir, "cat-file", "-p", tree+":new.txt"); got != "still captured" {
		t.Errorf("new.txt in the snapshot holds %q", got)
	}
}

func TestSnapshotNotRepository(t *testing.T) {
	if _, err := Snapshot(context.Background(), t.TempDir()); !errors.Is(err, gitops.ErrNotRepo) {
		t.Fatalf("Snapshot = %v, want ErrNotRepo", err)
	}
}

// An agent may set core.fsmonitor to any command; git-ralph's reads do not run it.
func TestFsmonitorOfTheRepositoryIsNotRun(t *testing.T) {
	dir := committedRepo(t)
	marker := filepath.Join(t.TempDir(), "fsmonitor-ran")
	run(t, dir, "config", "core.fsmonitor", "touch "+marker+"; sleep 60; :")
	write(t, dir, "a.txt", "changed\n")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	cp, err := TakeCheckpoint(ctx, dir, keepNothing)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Tree == "" {
		t.Fatal("no tree for a dirty work tree")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git-ralph's git status ran the repository's core.fsmonitor command")
	}
}
