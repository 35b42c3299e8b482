package gitsnap

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// TestQuickSnapshotMatchesIndex: for every kind of change, the tree built without an index
// is the tree staging into a copy of the index gives, or the quick way declines.
func TestQuickSnapshotMatchesIndex(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		quick  bool // the quick way takes it
	}{
		{"tracked file modified", func(t *testing.T, dir string) { write(t, dir, "a.txt", "ONE\n") }, true},
		{"nested file modified", func(t *testing.T, dir string) { write(t, dir, "dir/b.txt", "TWO\n") }, true},
		{"tracked file deleted", func(t *testing.T, dir string) { remove(t, filepath.Join(dir, "a.txt")) }, true},
		{"last file of a directory deleted", func(t *testing.T, dir string) { remove(t, filepath.Join(dir, "dir", "b.txt")) }, true},
		{"made executable", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "a.txt"), 0o755) }, true},
		{"untracked file", func(t *testing.T, dir string) { write(t, dir, "new.txt", "new\n") }, true},
		{"untracked file in a tracked directory", func(t *testing.T, dir string) { write(t, dir, "dir/new.txt", "new\n") }, true},
		{"several at once", func(t *testing.T, dir string) {
			write(t, dir, "a.txt", "ONE\n")
			write(t, dir, "dir/c.txt", "c\n")
			remove(t, filepath.Join(dir, "dir", "b.txt"))
			write(t, dir, "z.txt", "z\n")
		}, true},
		{"crlf converted by attributes", func(t *testing.T, dir string) {
			run(t, dir, "config", "core.autocrlf", "input")
			write(t, dir, "a.txt", "one\r\ntwo\r\n")
		}, true},
		{"untracked directory", func(t *testing.T, dir string) { write(t, dir, "newdir/x.txt", "x\n") }, true},
		{"untracked directories, nested, with ignored files", func(t *testing.T, dir string) {
			write(t, dir, "newdir/x.txt", "x\n")
			write(t, dir, "newdir/debug.log", "ignored\n")
			write(t, dir, "newdir/sub/y.txt", "y\n")
			write(t, dir, "dir/new/z.txt", "z\n")
			write(t, dir, "only-ignored/a.log", "ignored\n")
		}, true},
		{"untracked directory holding a repository", func(t *testing.T, dir string) {
			write(t, dir, "newdir/x.txt", "x\n")
			run(t, filepath.Join(dir, "newdir"), "init", "-q", "inner")
			write(t, dir, "newdir/inner/f.txt", "f\n")
			run(t, filepath.Join(dir, "newdir", "inner"), "add", "f.txt")
			run(t, filepath.Join(dir, "newdir", "inner"), "commit", "-q", "-m", "inner")
		}, false},
		{"untracked directory holding an executable", func(t *testing.T, dir string) {
			write(t, dir, "bin/run.sh", "#!/bin/sh\n")
			chmod(t, filepath.Join(dir, "bin", "run.sh"), 0o755)
		}, false},
		{"untracked executable", func(t *testing.T, dir string) {
			write(t, dir, "run.sh", "#!/bin/sh\n")
			chmod(t, filepath.Join(dir, "run.sh"), 0o755)
		}, false},
		{"symlink", func(t *testing.T, dir string) {
			if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"change staged", func(t *testing.T, dir string) { write(t, dir, "a.txt", "staged\n"); run(t, dir, "add", "a.txt") }, false},
		{"file name with a quote", func(t *testing.T, dir string) { write(t, dir, `say "hi".txt`, "hi\n") }, false},
		{"deleted in a directory with a line break in its name", func(t *testing.T, dir string) {
			write(t, dir, "two\nlines/x.txt", "x\n")
			run(t, dir, "add", "-A")
			run(t, dir, "commit", "-q", "-m", "odd name")
			remove(t, filepath.Join(dir, "two\nlines", "x.txt"))
		}, false},
		{"deep change", func(t *testing.T, dir string) {
			write(t, dir, "dir/deep/er/f.txt", "f\n")
			run(t, dir, "add", "-A")
			run(t, dir, "commit", "-q", "-m", "deep")
			write(t, dir, "dir/deep/er/f.txt", "F\n")
			write(t, dir, "dir/deep/new.txt", "new\n")
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := committedRepo(t)
			tt.change(t, dir)
			head := run(t, dir, "rev-parse", "HEAD")
			status, err := porcelainStatus(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			want, err := snapshotDirty(ctx, dir, parseStatus(status))
			if err != nil {
				t.Fatal(err)
			}
			got, err := quickSnapshot(ctx, dir, head, status)
			if !tt.quick {
				if !errors.Is(err, gitstore.ErrNotQuick) {
					t.Fatalf("quickSnapshot = %s, %v; want it to decline", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("quickSnapshot: %v", err)
			}
			if got != want {
				t.Errorf("quickSnapshot = %s, the index gives %s:\n%s\n---\n%s", got, want,
					run(t, dir, "ls-tree", "-r", got), run(t, dir, "ls-tree", "-r", want))
			}
			if snap := snapshot(t, dir); snap != want {
				t.Errorf("Snapshot = %s, want %s", snap, want)
			}
		})
	}
}

// TestQuickSnapshotTreeCache: snapshots at one HEAD reuse the trees read for it, and give
// what the index way gives as the changes move around; a new HEAD reads its own.
func TestQuickSnapshotTreeCache(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	check := func(step string) {
		t.Helper()
		head := run(t, dir, "rev-parse", "HEAD")
		status, err := porcelainStatus(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := snapshotDirty(ctx, dir, parseStatus(status))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := quickSnapshot(ctx, dir, head, status); err != nil || got != want {
			t.Errorf("%s: quickSnapshot = %s, %v; the index gives %s", step, got, err, want)
		}
	}
	write(t, dir, "a.txt", "first\n")
	check("top-level change")
	write(t, dir, "dir/b.txt", "second\n")
	check("nested change at the same HEAD")
	run(t, dir, "commit", "-q", "-am", "both")
	write(t, dir, "dir/c.txt", "third\n")
	check("after a commit")
	run(t, dir, "reset", "-q", "--hard", "HEAD^")
	write(t, dir, "dir/c.txt", "third\n")
	check("back at the first HEAD")
}
