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
	"sync"
	"testing"
	"time"
)

// TestMain gives every git call in this package's tests the same empty configuration.
func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	home, err := os.MkdirTemp("", "gitops-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"} {
		os.Unsetenv(name)
	}
	for name, value := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL": filepath.Join(home, "gitconfig"), "GIT_CEILING_DIRECTORIES": os.TempDir(),
		"GIT_AUTHOR_NAME": "Ralph", "GIT_AUTHOR_EMAIL": "ralph@example.com", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME": "Ralph", "GIT_COMMITTER_EMAIL": "ralph@example.com", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
	} {
		os.Setenv(name, value)
	}
	defer removeBenchRepo()
	return m.Run()
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

// hostileDiffConfig sets every option we know of that changes what `git diff` prints.
func hostileDiffConfig(t *testing.T, dir string) {
	for _, kv := range [][2]string{
		{"diff.noprefix", "true"}, {"diff.mnemonicPrefix", "true"}, {"diff.relative", "true"},
		{"diff.renames", "copies"}, {"color.diff", "always"}, {"diff.external", "echo EXTERNAL"},
		{"diff.ignoreSubmodules", "all"},
	} {
		run(t, dir, "config", kv[0], kv[1])
	}
}

// TestDiffCommittedAndUncommitted: one change committed, others left in the work tree, all in
// one diff between the checkpoints, read from a subdirectory under hostile diff config.
func TestDiffCommittedAndUncommitted(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "a.txt", "1\n2\n3\n")
	write(t, dir, "gone.txt", "x\ny\n")
	write(t, dir, "bin.dat", "\x00\x01\x02\x00")
	write(t, dir, "moved.txt", "m1\nm2\nm3\n")
	write(t, dir, "sub/keep.txt", "k\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "first")
	hostileDiffConfig(t, dir)
	before, err := TakeCheckpoint(ctx, dir, keepNothing)
	if err != nil {
		t.Fatal(err)
	}

	write(t, dir, "a.txt", "1\nTWO\n3\n")
	run(t, dir, "commit", "-q", "-am", "committed change")
	write(t, dir, "new.txt", "n1\nn2\n")
	remove(t, filepath.Join(dir, "gone.txt"))
	write(t, dir, "bin.dat", "\x00\x09\x09\x00")
	run(t, dir, "mv", "moved.txt", "renamed.txt")
	nested := filepath.Join(dir, "nested")
	write(t, nested, "n.txt", "n\n")
	run(t, nested, "init", "-q")
	run(t, nested, "add", "n.txt")
	run(t, nested, "commit", "-q", "-m", "nested")
	after, err := TakeCheckpoint(ctx, dir, keepNothing)
	if err != nil {
		t.Fatal(err)
	}
	if after.Head == before.Head || after.Tree == before.Tree {
		t.Fatalf("checkpoints %+v and %+v should differ in both fields", before, after)
	}

	sub := filepath.Join(dir, "sub")
	got, err := DiffStat(ctx, sub, before.Tree, after.Tree)
	if err != nil {
		t.Fatal(err)
	}
	// a.txt 1/1, new.txt 2/0, gone.txt 0/2, bin.dat 0/0, moved.txt 0/3, renamed.txt 3/0, and
	// nested 1/0 (a submodule counts as one line; the diff shows its content).
	if want := (Changes{Files: 7, Insertions: 7, Deletions: 6}); got != want {
		t.Errorf("DiffStat = %+v, want %+v", got, want)
	}
	if same, err := DiffStat(ctx, dir, after.Tree, after.Tree); err != nil || same != (Changes{}) {
		t.Errorf("DiffStat of a tree with itself = %+v, %v", same, err)
	}

	var diff bytes.Buffer
	if err := Diff(ctx, sub, before.Tree, after.Tree, &diff); err != nil {
		t.Fatal(err)
	}
	text := diff.String()
	for _, want := range []string{
		"diff --git a/a.txt b/a.txt\n", "-2\n+TWO\n", "Binary files a/bin.dat and b/bin.dat differ\n",
		"deleted file mode 100644\n", "+++ b/new.txt\n", "--- a/moved.txt\n", "+++ b/renamed.txt\n",
		"Submodule nested 0000000...", "+++ b/nested/n.txt\n@@ -0,0 +1 @@\n+n\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("diff lacks %q:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"EXTERNAL", "\x1b[", "\x00", "rename from", "keep.txt"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("diff contains %q:\n%s", unwanted, text)
		}
	}
}

var errDiskFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestDiffReportsWriterError(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	before := snapshot(t, dir)
	write(t, dir, "a.txt", strings.Repeat("line\n", 100_000))
	after := snapshot(t, dir)
	if err := Diff(ctx, dir, before, after, failingWriter{}); !errors.Is(err, errDiskFull) {
		t.Fatalf("Diff = %v, want the writer's error", err)
	}
}

func TestParseNumstat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Changes
		wantErr bool
	}{
		{name: "empty", in: "", want: Changes{}},
		{name: "text and binary", in: "3\t1\ta.txt\x00-\t-\tbin.dat\x00", want: Changes{Files: 2, Insertions: 3, Deletions: 1}},
		{name: "path with tab", in: "1\t0\ta\tb.txt\x00", want: Changes{Files: 1, Insertions: 1}},
		{name: "rename record", in: "2\t1\t\x00old.txt\x00new.txt\x000\t4\tz.txt\x00", want: Changes{Files: 2, Insertions: 2, Deletions: 5}},
		{name: "truncated record", in: "3\x00", wantErr: true},
		{name: "not a number", in: "x\t1\ta.txt\x00", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseNumstat(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseNumstat(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestKeepAliveSurvivesGC(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	first := run(t, dir, "rev-parse", "HEAD")

	write(t, dir, "kept.txt", "kept\n")
	keptTree := snapshot(t, dir)
	remove(t, filepath.Join(dir, "kept.txt"))
	write(t, dir, "lost.txt", "lost\n")
	lostBlob := run(t, dir, "rev-parse", snapshot(t, dir)+":lost.txt")
	remove(t, filepath.Join(dir, "lost.txt"))
	write(t, dir, "a.txt", "abandoned\n")
	run(t, dir, "commit", "-q", "-am", "abandoned")
	abandoned := run(t, dir, "rev-parse", "HEAD")
	run(t, dir, "reset", "-q", "--hard", first)

	if err := KeepAlive(ctx, dir, "refs/ralph/iterations/1/start", keptTree); err != nil {
		t.Fatal(err)
	}
	if err := KeepAlive(ctx, dir, "refs/ralph/iterations/1/end", abandoned); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "reflog", "expire", "--expire=now", "--all")
	run(t, dir, "gc", "--quiet", "--prune=now")

	for _, object := range []string{keptTree, keptTree + ":kept.txt", abandoned} {
		if _, err := Git(ctx, dir, "cat-file", "-e", object); err != nil {
			t.Errorf("%s did not survive gc: %v", object, err)
		}
	}
	if _, err := Git(ctx, dir, "cat-file", "-e", lostBlob); err == nil {
		t.Errorf("blob %s without a ref survived gc; the test proves nothing", lostBlob)
	}
	if _, err := Git(ctx, dir, "log", "--all", "--oneline"); err != nil {
		t.Errorf("a ref to a tree broke git log --all: %v", err)
	}
}

func TestKeepAliveRejects(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	for _, tt := range []struct{ name, ref, hash string }{
		{"no hash", "refs/ralph/x", ""},
		{"not under refs/", "ralph/x", head},
		{"a branch", "refs/heads/main", head},
		{"unknown object", "refs/ralph/x", strings.Repeat("1", 40)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := KeepAlive(ctx, dir, tt.ref, tt.hash); err == nil {
				t.Errorf("KeepAlive(%q, %q) succeeded", tt.ref, tt.hash)
			}
		})
	}
}

// The benchmark repository: 200 directories × 100 small files, committed, made once per run.
var bench struct {
	once sync.Once
	dir  string
	err  error
}

func benchRepo(b *testing.B) string {
	if testing.Short() {
		b.Skip("generates a 20,000-file repository")
	}
	bench.once.Do(func() { bench.dir, bench.err = makeBenchRepo() })
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.dir
}

func makeBenchRepo() (string, error) {
	dir, err := os.MkdirTemp("", "gitops-bench-")
	if err != nil {
		return "", err
	}
	for d := range 200 {
		sub := filepath.Join(dir, fmt.Sprintf("dir%03d", d))
		if err := os.Mkdir(sub, 0o755); err != nil {
			return dir, err
		}
		for f := range 100 {
			content := fmt.Sprintf("package p%d\n\n// file %d of directory %d\nconst N = %d\n", d, f, d, f)
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.go", f)), []byte(content), 0o644); err != nil {
				return dir, err
			}
		}
	}
	ctx := context.Background()
	if err := Init(ctx, dir, "main"); err != nil {
		return dir, err
	}
	if _, err := CommitAll(ctx, dir, "generated"); err != nil {
		return dir, err
	}
	return dir, nil
}

func removeBenchRepo() {
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
}

// benchStates runs body on the clean repository, then with 10 files modified and 10 untracked.
func benchStates(b *testing.B, body func(b *testing.B, dir string)) {
	dir := benchRepo(b)
	b.Run("clean", func(b *testing.B) { body(b, dir) })
	b.Run("dirty", func(b *testing.B) {
		for i := range 10 {
			write(b, dir, fmt.Sprintf("dir%03d/f000.go", i*20), fmt.Sprintf("package changed\n// %d\n", i))
			write(b, dir, fmt.Sprintf("dir%03d/untracked.go", i*20), "package untracked\n")
		}
		defer func() {
			run(b, dir, "reset", "-q", "--hard")
			run(b, dir, "clean", "-q", "-f")
		}()
		body(b, dir)
	})
}

func BenchmarkCheckpoint(b *testing.B) {
	ctx := context.Background()
	benchStates(b, func(b *testing.B, dir string) {
		for b.Loop() {
			if _, err := TakeCheckpoint(ctx, dir, keepNothing); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkShellMinimum is the baseline: the three processes a shell script would start to see
// whether anything happened.
func BenchmarkShellMinimum(b *testing.B) {
	ctx := context.Background()
	benchStates(b, func(b *testing.B, dir string) {
		for b.Loop() {
			for _, args := range [][]string{{"rev-parse", "HEAD"}, {"status", "--porcelain"}, {"diff", "--stat"}} {
				if _, err := Git(ctx, dir, args...); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// keepNothing is a TakeCheckpoint keep function for tests that do not look at refs.
func keepNothing(Checkpoint) []Ref { return nil }
