package gitsnap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigChange commits, on top of committedRepo, the given files (name: content) and returns
// the repository and the trees before and after.
func bigChange(t *testing.T, files map[string]string) (dir, before, after string) {
	t.Helper()
	dir = committedRepo(t)
	before = run(t, dir, "rev-parse", "HEAD^{tree}")
	for name, content := range files {
		write(t, dir, name, content)
	}
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "big")
	return dir, before, run(t, dir, "rev-parse", "HEAD^{tree}")
}

// savedStat is what `git ralph history --diff N --stat` shows of a saved diff.
func savedStat(t *testing.T, dir, patch string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "diff.patch")
	if err := os.WriteFile(path, []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	return run(t, dir, "apply", "--stat", path)
}

// A file with more changed lines than a diff can usefully show is named, with its counts,
// instead of diffed; the others are diffed, and the counts are the whole change's.
func TestDiffCountedLeavesOutAHugeFile(t *testing.T) {
	huge := strings.Repeat("a log line\n", SavedDiffFileLines+1)
	dir, before, after := bigChange(t, map[string]string{"huge.txt": huge, "small.txt": "small\n"})
	var patch strings.Builder
	got, err := DiffCounted(context.Background(), dir, before, after, &patch)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Changes{Files: 2, Insertions: SavedDiffFileLines + 2}); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
	text := patch.String()
	if !strings.HasPrefix(text, fmt.Sprintf("git-ralph: \"huge.txt\": %d lines added, 0 deleted: too many", SavedDiffFileLines+1)) {
		t.Errorf("the huge file is not named at the top:\n%.300s", text)
	}
	if strings.Contains(text, "+a log line") || !strings.Contains(text, "+small") {
		t.Errorf("the diff holds the huge file or lacks the small one:\n%.500s", text)
	}
	if stat := savedStat(t, dir, text); !strings.Contains(stat, "small.txt") {
		t.Errorf("git apply --stat of the saved diff: %q", stat)
	}
}

// A change larger than SavedDiffBytes is cut at the end of a file, with a line that says
// how much is left out and how to see it.
func TestDiffCountedStopsAtItsBound(t *testing.T) {
	line := strings.Repeat("x", 299) + "\n"
	const each = SavedDiffBytes * 3 / 8 / 300 // two files fit in the bound, not three
	files := map[string]string{}
	for i := range 5 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat(line, each)
	}
	dir, before, after := bigChange(t, files)
	var patch strings.Builder
	got, err := DiffCounted(context.Background(), dir, before, after, &patch)
	if err != nil {
		t.Fatal(err)
	}
	if got.Files != 5 || got.Insertions != 5*each {
		t.Errorf("counts %+v, want 5 files, %d insertions", got, 5*each)
	}
	text := patch.String()
	if len(text) > SavedDiffBytes+1000 {
		t.Errorf("the saved diff is %d bytes, over its bound of %d", len(text), SavedDiffBytes)
	}
	note := fmt.Sprintf("git-ralph: the diff stops here, at 4 MiB: 3 more changed files are not shown; `git diff %s %s` shows the whole change\n", before, after)
	if !strings.HasSuffix(text, note) {
		t.Errorf("the saved diff ends with %q, want %q", text[max(0, len(text)-200):], note)
	}
	if stat := savedStat(t, dir, text); !strings.Contains(stat, "2 files changed") {
		t.Errorf("git apply --stat of the saved diff: %q", stat)
	}
}

// The patch is cut at file boundaries however git's output is split into writes.
func TestCappedPatchFindsFilesAcrossWrites(t *testing.T) {
	part := func(name string) string {
		return "diff --git a/" + name + " b/" + name + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + name + "\n@@ -0,0 +1 @@\n+diff --git inside a line\n"
	}
	whole := part("a") + part("b") + part("c")
	for _, size := range []int{1, 7, 12, len(whole)} {
		var out strings.Builder
		c := &cappedPatch{w: &out, room: int64(len(part("a")) + len(part("b")))}
		for rest := whole; rest != "" && !c.capped; {
			n := min(size, len(rest))
			c.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		if err := c.finish("X", "Y", make([]fileCount, 3)); err != nil {
			t.Fatal(err)
		}
		want := part("a") + part("b") + "git-ralph: the diff stops here, at 4 MiB: 1 more changed files are not shown; `git diff X Y` shows the whole change\n"
		if out.String() != want || c.shown != 2 {
			t.Errorf("writes of %d bytes: %d files shown, got\n%s", size, c.shown, out.String())
		}
	}
}
