package mergequeue

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/history"
)

// prepare asks git for the merge base only when the merged tree leaves it open; each
// case must still come out as Relation says: a true merge, a fast-forward, already merged,
// and a conflict.
func TestRelationFromTheMergedTree(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := gitops.Init(ctx, dir, "main"); err != nil {
		t.Fatal(err)
	}
	commit := func(file, text string) string {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", file)
		return git(t, dir, "rev-parse", "HEAD")
	}
	first := commit("a.txt", "a\n")
	side := commit("b.txt", "b\n") // first + b
	git(t, dir, "checkout", "-q", first)
	other := commit("c.txt", "c\n") // first + c: a true merge with side
	git(t, dir, "checkout", "-q", first)
	clash := commit("b.txt", "not b\n") // conflicts with side
	r := repo{dir: dir}
	for _, tt := range []struct {
		name             string
		base, tip        string
		done, ff, clashy bool
	}{
		{"true merge", other, side, false, false, false},
		{"fast-forward", first, side, false, true, false},
		{"already merged", side, first, true, false, false},
		{"conflict", clash, side, false, false, true},
	} {
		entry := history.Merge{How: gitmerge.HowMerge, BaseBefore: tt.base, Tip: tt.tip}
		p, err := r.prepare(ctx, entry, "x")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := len(p.Conflicts) > 0; got != tt.clashy {
			t.Errorf("%s: conflicts %v, want %v", tt.name, p.Conflicts, tt.clashy)
		}
		done, ff := p.done, p.ff
		if done != tt.done || ff != tt.ff {
			t.Errorf("%s: prepare = done %v, ff %v; want done %v, ff %v", tt.name, done, ff, tt.done, tt.ff)
		}
		if tt.name == "true merge" && p.tree == "" {
			t.Errorf("%s: no merged tree was made", tt.name)
		}
		wantDone, wantFF, _ := gitmerge.Relation(ctx, dir, tt.base, tt.tip)
		if done != wantDone || ff != wantFF {
			t.Errorf("%s: relation = %v, %v; Relation says %v, %v", tt.name, done, ff, wantDone, wantFF)
		}
	}
}
