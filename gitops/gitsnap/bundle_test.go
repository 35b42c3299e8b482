package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

// A bundle of a work tree wrapped in a commit carries the commits and the uncommitted
// work from one repository to a clone of its starting point, exactly.
func TestBundleCarriesCommitsAndWorkTreeToAClone(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	start := run(t, dir, "rev-parse", "HEAD")
	clone := filepath.Join(t.TempDir(), "clone")
	run(t, dir, "clone", "-q", dir, clone)

	write(t, dir, "a.txt", "changed\n")
	run(t, dir, "commit", "-q", "-am", "second")
	write(t, dir, "untracked.txt", "new\n")
	after, err := CheckpointNow(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := gitops.CommitTree(ctx, dir, after.Tree, after.Head, "work tree")
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "change.bundle")
	if err := WriteBundle(ctx, dir, bundle, wrapped, start); err != nil {
		t.Fatal(err)
	}
	if refs := run(t, dir, "for-each-ref", "refs/ralph/"); refs != "" {
		t.Errorf("WriteBundle left refs behind: %s", refs)
	}

	tip, err := ReadBundle(ctx, clone, bundle, "refs/ralph/replay/change")
	if err != nil {
		t.Fatal(err)
	}
	parent, tree, err := gitops.CommitParts(ctx, clone, tip)
	if err != nil {
		t.Fatal(err)
	}
	if tip != wrapped || parent != after.Head || tree != after.Tree {
		t.Errorf("read %s (on %s, tree %s), want %s (on %s, tree %s)", tip, parent, tree, wrapped, after.Head, after.Tree)
	}
}

// A bundle needs the commit it was made on top of: a repository without it gets
// ErrBundleNeeds, and nothing is added.
func TestReadBundleNeedsItsBase(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	start := run(t, dir, "rev-parse", "HEAD")
	write(t, dir, "a.txt", "changed\n")
	run(t, dir, "commit", "-q", "-am", "second")
	bundle := filepath.Join(t.TempDir(), "change.bundle")
	if err := WriteBundle(ctx, dir, bundle, run(t, dir, "rev-parse", "HEAD"), start); err != nil {
		t.Fatal(err)
	}
	other := newRepo(t)
	run(t, other, "commit", "-q", "--allow-empty", "-m", "another project")
	if _, err := ReadBundle(ctx, other, bundle, "refs/ralph/replay/change"); !errors.Is(err, ErrBundleNeeds) {
		t.Errorf("err = %v, want ErrBundleNeeds", err)
	}
	if _, err := ReadBundle(ctx, other, filepath.Join(t.TempDir(), "missing"), "refs/ralph/replay/change"); err == nil {
		t.Error("a missing bundle was read")
	}
}

// A bundle from a hostile recording may name many refs: refused with a message of a
// bounded size, and none of them kept.
func TestReadBundleRefusesManyRefsBriefly(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	var refs strings.Builder
	for i := range 500 {
		fmt.Fprintf(&refs, "create refs/heads/many-%03d HEAD\n", i)
	}
	if err := gitops.GitTo(ctx, dir, nil, strings.NewReader(refs.String()), io.Discard, "update-ref", "--stdin"); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "many.bundle")
	run(t, dir, "bundle", "create", "-q", bundle, "--branches")
	other := newRepo(t)
	_, err := ReadBundle(ctx, other, bundle, "refs/ralph/replay/change")
	if err == nil || len(err.Error()) > 500 || !strings.Contains(err.Error(), "501 refs") {
		t.Errorf("err (%d bytes) = %.300v…; want a short refusal counting 501 refs", len(fmt.Sprint(err)), err)
	}
	if kept := run(t, other, "for-each-ref", "refs/ralph/"); kept != "" {
		t.Errorf("kept %s", kept)
	}
}
