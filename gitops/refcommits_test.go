package gitops

import (
	"context"
	"strings"
	"testing"
)

func TestRefCommitsListsCommitsUnderThePrefixOnly(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	tree := run(t, dir, "rev-parse", "HEAD^{tree}")
	msg := "git-ralph checkpoint a\n\nfirst paragraph\n\nRalph-Head: x\n"
	commit, err := CommitTree(ctx, dir, tree, head, msg)
	if err != nil {
		t.Fatal(err)
	}
	run(t, dir, "update-ref", "refs/ralph/checkpoints/a", commit)
	run(t, dir, "update-ref", "refs/ralph/checkpoints/b", head)
	run(t, dir, "update-ref", "refs/ralph/checkpoints/tree", tree) // a hostile repository's ref to a tree
	run(t, dir, "update-ref", "refs/ralph/other/c", head)

	refs, err := RefCommits(ctx, dir, "refs/ralph/checkpoints/")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 {
		t.Fatalf("RefCommits = %+v, want the commits a and b", refs)
	}
	a, b := refs[0], refs[1]
	if a.Name != "refs/ralph/checkpoints/a" || a.Commit != commit || a.Tree != tree || a.Message != msg || a.Time.IsZero() {
		t.Errorf("a = %+v, want commit %s, tree %s, message %q", a, commit, tree, msg)
	}
	if b.Name != "refs/ralph/checkpoints/b" || b.Commit != head || strings.TrimSpace(b.Message) != "first" {
		t.Errorf("b = %+v", b)
	}
	if _, err := RefCommits(ctx, dir, "refs/ralph/checkpoints"); err == nil {
		t.Error("RefCommits took a prefix without a trailing /")
	}
	if refs, err := RefCommits(ctx, dir, "refs/ralph/none/"); err != nil || len(refs) != 0 {
		t.Errorf("RefCommits(no refs) = %v, %v", refs, err)
	}
}
