package gitops

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// A clone has the root commits of the repository it was cloned from, and its origin
// names that repository; an unborn branch has no root.
func TestRootCommitsAreSharedByClones(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	run(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	clone := filepath.Join(t.TempDir(), "clone")
	run(t, dir, "clone", "-q", dir, clone)
	a, err := RootCommits(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RootCommits(ctx, clone)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1 || !slices.Equal(a, b) {
		t.Errorf("roots %v and the clone's %v", a, b)
	}
	if roots, err := RootCommits(ctx, newRepo(t)); err != nil || roots != nil {
		t.Errorf("an unborn branch has roots %v, %v", roots, err)
	}
	if url := RemoteURL(ctx, clone, "origin"); url != dir {
		t.Errorf("origin = %q, want %q", url, dir)
	}
}
