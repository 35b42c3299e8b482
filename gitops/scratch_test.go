package gitops

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveScratch removes the scratch index copies a killed snapshot left in the work
// tree's git directory, and only those: not another work tree's, not other files.
func TestRemoveScratch(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	gitDir := filepath.Join(dir, ".git")
	leftovers := []string{filepath.Join(gitDir, "ralph-index-123"), filepath.Join(gitDir, "ralph-index-456")}
	others := []string{filepath.Join(gitDir, "worktrees", "wt", "ralph-index-789"), filepath.Join(gitDir, "ralph-indexes")}
	for _, d := range append(leftovers, others...) {
		write(t, d, "index", "a copy of the index\n")
	}
	write(t, gitDir, "ralph-index-file", "not a directory of ours\n")

	removed, err := RemoveScratch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if removed != len(leftovers) {
		t.Errorf("removed %d, want %d", removed, len(leftovers))
	}
	for _, d := range leftovers {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", d, err)
		}
	}
	for _, d := range append(others, filepath.Join(gitDir, "ralph-index-file")) {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	if removed, err := RemoveScratch(ctx, wt); err != nil || removed != 1 {
		t.Errorf("in the linked worktree: removed %d, %v; want its one leftover", removed, err)
	}
}
