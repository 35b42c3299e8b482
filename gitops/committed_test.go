package gitops

import (
	"context"
	"testing"
)

func TestInHead(t *testing.T) {
	ctx := context.Background()
	empty := newRepo(t)
	if ok, err := InHead(ctx, empty, "a.txt"); ok || err != nil {
		t.Errorf("no commit yet: %v, %v", ok, err)
	}
	dir := committedRepo(t)
	write(t, dir, "new.txt", "untracked\n")
	write(t, dir, "added.txt", "staged only\n")
	run(t, dir, "add", "added.txt")
	for path, want := range map[string]bool{"a.txt": true, "dir/b.txt": true, "new.txt": false, "added.txt": false, "dir": true, "gone.txt": false} {
		if ok, err := InHead(ctx, dir, path); ok != want || err != nil {
			t.Errorf("InHead(%s) = %v, %v; want %v", path, ok, err, want)
		}
	}
}
