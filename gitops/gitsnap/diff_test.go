package gitsnap

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

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
