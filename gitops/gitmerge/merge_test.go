package gitmerge

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
)

// forked is a repository where main and the branch side each have one commit on top of
// the first; shared names the file both change when conflict is set.
func forked(t *testing.T, conflict bool) (dir, base, tip string) {
	t.Helper()
	dir = committedRepo(t)
	run(t, dir, "switch", "-q", "-c", "side")
	write(t, dir, "side.txt", "side\n")
	if conflict {
		write(t, dir, "a.txt", "side's\n")
	}
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "side")
	run(t, dir, "switch", "-q", "main")
	write(t, dir, "main.txt", "main\n")
	if conflict {
		write(t, dir, "a.txt", "main's\n")
	}
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "main")
	return dir, run(t, dir, "rev-parse", "main"), run(t, dir, "rev-parse", "side")
}

// scratch adds a detached worktree at commit and removes it after the test.
func scratch(t *testing.T, dir, commit string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scratch")
	if err := gitwt.Add(context.Background(), dir, path, commit); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gitwt.ForceRemove(context.Background(), dir, path) })
	return path
}

func TestBuildInWorktree(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{HowMerge, HowSquash, HowRebase} {
		t.Run(how, func(t *testing.T) {
			dir, base, tip := forked(t, false)
			s := scratch(t, dir, base)
			built, err := BuildInWorktree(ctx, s, base, tip, how, "merged", false)
			if err != nil || built.Commit == "" || len(built.Conflicts) > 0 {
				t.Fatalf("BuildInWorktree = %+v, %v", built, err)
			}
			parents := run(t, dir, "rev-list", "--parents", "-n1", built.Commit)
			want := map[string]int{HowMerge: 3, HowSquash: 2, HowRebase: 2}[how] // the commit and its parents
			if n := len(strings.Fields(parents)); n != want {
				t.Errorf("%s: %q has %d fields, want %d", how, parents, n, want)
			}
			files := run(t, dir, "ls-tree", "--name-only", built.Commit)
			if !strings.Contains(files, "side.txt") || !strings.Contains(files, "main.txt") {
				t.Errorf("%s: the result holds %q, want both sides", how, files)
			}
			if ok, _, _ := Relation(ctx, dir, built.Commit, base); !ok {
				t.Errorf("%s: the result does not contain the base", how)
			}
			if now := run(t, dir, "rev-parse", "main"); now != base {
				t.Errorf("%s: building moved main to %s", how, now)
			}
		})
	}
}

func TestBuildInWorktreeConflict(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{HowMerge, HowSquash, HowRebase} {
		t.Run(how, func(t *testing.T) {
			dir, base, tip := forked(t, true)
			s := scratch(t, dir, base)
			built, err := BuildInWorktree(ctx, s, base, tip, how, "merged", false)
			if err != nil || built.Commit != "" || !slices.Equal(built.Conflicts, []string{"a.txt"}) {
				t.Fatalf("BuildInWorktree = %+v, %v; want the conflict in a.txt", built, err)
			}
		})
	}
}

func TestRelation(t *testing.T) {
	ctx := context.Background()
	dir, base, tip := forked(t, false)
	first := run(t, dir, "rev-parse", "main~1")
	for _, tc := range []struct {
		base, tip  string
		merged, ff bool
	}{{base, tip, false, false}, {first, tip, false, true}, {base, first, true, false}, {base, base, true, true}} {
		merged, ff, err := Relation(ctx, dir, tc.base, tc.tip)
		if err != nil || merged != tc.merged || ff != tc.ff {
			t.Errorf("Relation(%s, %s) = %v, %v, %v; want %v, %v", tc.base[:7], tc.tip[:7], merged, ff, err, tc.merged, tc.ff)
		}
	}
}

func TestBuild(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{HowMerge, HowSquash} {
		t.Run(how, func(t *testing.T) {
			dir, base, tip := forked(t, false)
			status := run(t, dir, "status", "--porcelain")
			built, err := Build(ctx, dir, base, tip, how, "merged")
			if err != nil || built.Commit == "" {
				t.Fatalf("Build = %+v, %v", built, err)
			}
			parents := strings.Fields(run(t, dir, "rev-list", "--parents", "-n1", built.Commit))
			if want := map[string]int{HowMerge: 3, HowSquash: 2}[how]; len(parents) != want || parents[1] != base {
				t.Errorf("%s: parents %v, want base first and %d fields", how, parents, want)
			}
			if files := run(t, dir, "ls-tree", "--name-only", built.Commit); !strings.Contains(files, "side.txt") || !strings.Contains(files, "main.txt") {
				t.Errorf("%s: the result holds %q", how, files)
			}
			if run(t, dir, "rev-parse", "main") != base || run(t, dir, "status", "--porcelain") != status {
				t.Errorf("%s: Build touched the branch or the work tree", how)
			}
		})
	}
	dir, base, tip := forked(t, true)
	built, err := Build(ctx, dir, base, tip, HowMerge, "merged")
	if err != nil || built.Commit != "" || !slices.Equal(built.Conflicts, []string{"a.txt"}) {
		t.Fatalf("a conflicting Build = %+v, %v; want a.txt listed", built, err)
	}
}

// CopyCommit on the same tree and parent is the same commit; MergeTrees carries a change
// over to a tree that has another.
func TestCopyCommitAndMergeTrees(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	base := run(t, dir, "rev-parse", "HEAD")
	write(t, dir, "a.txt", "one\nand more\n")
	run(t, dir, "commit", "-q", "-am", "subject\n\nbody line\n")
	head := run(t, dir, "rev-parse", "HEAD")
	chain, ok, err := gitops.FirstParentChain(ctx, dir, base, head)
	if err != nil || !ok || !slices.Equal(chain, []string{head}) {
		t.Fatalf("FirstParentChain = %v, %v, %v", chain, ok, err)
	}
	if _, ok, _ := gitops.FirstParentChain(ctx, dir, head, base); ok {
		t.Error("going back counts as a chain")
	}
	copied, err := gitops.CopyCommit(ctx, dir, head, run(t, dir, "rev-parse", head+"^{tree}"), base)
	if err != nil || copied != head {
		t.Errorf("CopyCommit = %s, %v; want %s", copied, err, head)
	}

	baseTree, headTree := run(t, dir, "rev-parse", base+"^{tree}"), run(t, dir, "rev-parse", head+"^{tree}")
	write(t, dir, "dir/b.txt", "two, edited\n")
	ours, err := gitsnap.Snapshot(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	// ours: b.txt edited on top of head; carry base→head (a.txt) over to it: nothing to do
	merged, err := MergeTrees(ctx, dir, baseTree, ours, headTree)
	if err != nil || merged.Tree != ours {
		t.Errorf("MergeTrees = %+v, %v; want ours", merged, err)
	}
	// carry head→base (a.txt back) over to ours: a.txt back, b.txt kept
	merged, err = MergeTrees(ctx, dir, headTree, ours, baseTree)
	if err != nil || merged.Tree == "" {
		t.Fatalf("MergeTrees = %+v, %v", merged, err)
	}
	if a := run(t, dir, "cat-file", "-p", merged.Tree+":a.txt"); a != "one" {
		t.Errorf("a.txt = %q", a)
	}
	if b := run(t, dir, "cat-file", "-p", merged.Tree+":dir/b.txt"); b != "two, edited" {
		t.Errorf("b.txt = %q", b)
	}
	// a change to the same line conflicts
	write(t, dir, "a.txt", "uno\n")
	mine, _ := gitsnap.Snapshot(ctx, dir)
	merged, err = MergeTrees(ctx, dir, baseTree, mine, headTree)
	if err != nil || !slices.Equal(merged.Conflicts, []string{"a.txt"}) {
		t.Errorf("MergeTrees = %+v, %v; want a conflict in a.txt", merged, err)
	}
}
