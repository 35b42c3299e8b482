package gitsnap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
)

// pruneUnreachable does what `git gc --prune=now` does to objects no ref keeps, whenever
// they were written: it dates every loose object an hour back, then prunes.
func pruneUnreachable(t *testing.T, dir string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	objects := filepath.Join(dir, ".git", "objects")
	err := filepath.WalkDir(objects, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chtimes(path, past, past)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	run(t, dir, "prune", "--expire=now")
}

// TestTakeCheckpointRacingGC prunes the snapshot's objects in the window between its
// write-tree and the ref update that keeps it: the checkpoint is taken again, and what it
// returns is kept and whole.
func TestTakeCheckpointRacingGC(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	write(t, dir, "untracked.txt", "only in the work tree\n")
	var windows []gitops.Checkpoint
	beforeKeep = func(_ string, c gitops.Checkpoint) {
		windows = append(windows, c)
		if len(windows) == 1 {
			pruneUnreachable(t, dir)
			if _, err := gitops.Git(ctx, dir, "cat-file", "-e", c.Tree); err == nil {
				t.Fatal("the snapshot survived the prune; the test proves nothing")
			}
		}
	}
	defer func() { beforeKeep = func(string, gitops.Checkpoint) {} }()

	keep := func(c gitops.Checkpoint) []gitops.Ref {
		return []gitops.Ref{{Name: "refs/ralph/latest-tree", Hash: c.Tree}}
	}
	c, err := TakeCheckpoint(ctx, dir, keep)
	if err != nil {
		t.Fatalf("TakeCheckpoint after a gc in its window: %v", err)
	}
	if len(windows) != 2 {
		t.Fatalf("the checkpoint was taken %d times, want 2 (once more after the prune)", len(windows))
	}
	if got := run(t, dir, "rev-parse", "refs/ralph/latest-tree"); got != c.Tree {
		t.Errorf("refs/ralph/latest-tree = %s, want the checkpoint's tree %s", got, c.Tree)
	}
	pruneUnreachable(t, dir)
	if got := run(t, dir, "cat-file", "-p", c.Tree+":untracked.txt"); got != "only in the work tree" {
		t.Errorf("untracked.txt in the kept checkpoint holds %q", got)
	}
}

// TestTakeCheckpointGivesUp: a gc that prunes in every window makes TakeCheckpoint fail
// after a few attempts, saying why, rather than loop for ever.
func TestTakeCheckpointGivesUp(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	write(t, dir, "untracked.txt", "only in the work tree\n")
	attempts := 0
	beforeKeep = func(_ string, c gitops.Checkpoint) { attempts++; pruneUnreachable(t, dir) }
	defer func() { beforeKeep = func(string, gitops.Checkpoint) {} }()
	keep := func(c gitops.Checkpoint) []gitops.Ref {
		return []gitops.Ref{{Name: "refs/ralph/latest-tree", Hash: c.Tree}}
	}
	_, err := TakeCheckpoint(ctx, dir, keep)
	if err == nil || !gitops.IsPruned(err) {
		t.Fatalf("TakeCheckpoint = %v, want an error about pruned objects", err)
	}
	if attempts != checkpointAttempts {
		t.Errorf("%d attempts, want %d", attempts, checkpointAttempts)
	}
}

// TestSnapshotSubmoduleWork: uncommitted work in a submodule is in the snapshot, as a commit
// of the submodule's repository that a gc there keeps; the same work gives the same tree.
func TestSnapshotSubmoduleWork(t *testing.T) {
	lib := committedRepo(t)
	dir := committedRepo(t)
	run(t, dir, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", lib, "lib")
	run(t, dir, "commit", "-q", "-m", "lib")
	clean := snapshot(t, dir)
	sub := filepath.Join(dir, "lib")
	write(t, sub, "a.txt", "edited in the submodule\n")
	write(t, sub, "dir/new.txt", "untracked in the submodule\n")

	tree := snapshot(t, dir)
	if tree == clean {
		t.Fatal("the snapshot does not see the submodule's uncommitted work")
	}
	if again := snapshot(t, dir); again != tree {
		t.Errorf("the same work gave trees %s and %s", tree, again)
	}
	commit := run(t, dir, "rev-parse", tree+":lib")
	run(t, sub, "gc", "--quiet", "--prune=now")
	if got := run(t, sub, "cat-file", "-p", commit+":dir/new.txt"); got != "untracked in the submodule" {
		t.Errorf("dir/new.txt in the submodule's snapshot holds %q", got)
	}
	if head, parent := run(t, sub, "rev-parse", "HEAD"), run(t, sub, "rev-parse", commit+"^"); parent != head {
		t.Errorf("the submodule's snapshot has parent %s, want its HEAD %s", parent, head)
	}
	if status := run(t, sub, "status", "--porcelain"); status != " M a.txt\n?? dir/new.txt" && status != " M a.txt\n?? dir/" {
		t.Errorf("the submodule's status changed: %q", status)
	}
}

// TestDiffCounted: one process gives what DiffStat and Diff give apart.
func TestDiffCounted(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	before := snapshot(t, dir)
	write(t, dir, "a.txt", "ONE\ntwo\n")
	write(t, dir, "new.txt", "new\n")
	remove(t, filepath.Join(dir, "dir", "b.txt"))
	after := snapshot(t, dir)

	var patch bytes.Buffer
	got, err := DiffCounted(ctx, dir, before, after, &patch)
	if err != nil {
		t.Fatal(err)
	}
	want, err := DiffStat(ctx, dir, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || got.Files != 3 {
		t.Errorf("DiffCounted counts %+v, DiffStat %+v (want 3 files)", got, want)
	}
	var wantPatch bytes.Buffer
	if err := Diff(ctx, dir, before, after, &wantPatch); err != nil {
		t.Fatal(err)
	}
	if patch.String() != wantPatch.String() {
		t.Errorf("DiffCounted's patch:\n%q\nDiff's:\n%q", patch.String(), wantPatch.String())
	}
	patch.Reset()
	if same, err := DiffCounted(ctx, dir, after, after, &patch); err != nil || same != (Changes{}) || patch.Len() != 0 {
		t.Errorf("DiffCounted of a tree with itself = %+v, %v, patch %q", same, err, patch.String())
	}
}

func TestMissingObjects(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	absent := "1111111111111111111111111111111111111111"
	missing, err := gitops.MissingObjects(ctx, dir, head, "", absent, head+"^{tree}")
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) != 1 || missing[0] != absent {
		t.Errorf("MissingObjects = %q, want only %s", missing, absent)
	}
}
