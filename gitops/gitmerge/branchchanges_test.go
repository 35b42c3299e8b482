package gitmerge

import (
	"context"
	"slices"
	"testing"
)

// BranchChanges lists what the branch changed since it forked, not what the base did
// meanwhile; with no common history, every file of the branch.
func TestBranchChanges(t *testing.T) {
	dir := committedRepo(t)
	run(t, dir, "switch", "-q", "-c", "loop")
	write(t, dir, "dir/b.txt", "changed\n")
	write(t, dir, "new.txt", "new\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "loop work")
	run(t, dir, "switch", "-q", "main")
	write(t, dir, "a.txt", "base moved\n")
	run(t, dir, "commit", "-q", "-am", "base work")
	got, err := BranchChanges(context.Background(), dir, "main", "loop")
	if want := []string{"dir/b.txt", "new.txt"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("BranchChanges = %q, %v; want %q", got, err, want)
	}

	run(t, dir, "switch", "-q", "--orphan", "alone")
	write(t, dir, "only.txt", "x\n")
	run(t, dir, "add", "only.txt")
	run(t, dir, "commit", "-q", "-m", "unrelated")
	got, err = BranchChanges(context.Background(), dir, "main", "alone")
	if want := []string{"only.txt"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("BranchChanges of an unrelated branch = %q, %v; want %q", got, err, want)
	}
}
