package gitsnap

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

func TestKeepAliveSurvivesGC(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	first := run(t, dir, "rev-parse", "HEAD")

	write(t, dir, "kept.txt", "kept\n")
	keptTree := snapshot(t, dir)
	remove(t, filepath.Join(dir, "kept.txt"))
	write(t, dir, "lost.txt", "lost\n")
	lostBlob := run(t, dir, "rev-parse", snapshot(t, dir)+":lost.txt")
	remove(t, filepath.Join(dir, "lost.txt"))
	write(t, dir, "a.txt", "abandoned\n")
	run(t, dir, "commit", "-q", "-am", "abandoned")
	abandoned := run(t, dir, "rev-parse", "HEAD")
	run(t, dir, "reset", "-q", "--hard", first)

	if err := gitops.KeepAlive(ctx, dir, "refs/ralph/iterations/1/start", keptTree); err != nil {
		t.Fatal(err)
	}
	if err := gitops.KeepAlive(ctx, dir, "refs/ralph/iterations/1/end", abandoned); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "reflog", "expire", "--expire=now", "--all")
	run(t, dir, "gc", "--quiet", "--prune=now")

	for _, object := range []string{keptTree, keptTree + ":kept.txt", abandoned} {
		if _, err := gitops.Git(ctx, dir, "cat-file", "-e", object); err != nil {
			t.Errorf("%s did not survive gc: %v", object, err)
		}
	}
	if _, err := gitops.Git(ctx, dir, "cat-file", "-e", lostBlob); err == nil {
		t.Errorf("blob %s without a ref survived gc; the test proves nothing", lostBlob)
	}
	if _, err := gitops.Git(ctx, dir, "log", "--all", "--oneline"); err != nil {
		t.Errorf("a ref to a tree broke git log --all: %v", err)
	}
}

func TestKeepAliveRejects(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	for _, tt := range []struct{ name, ref, hash string }{
		{"no hash", "refs/ralph/x", ""},
		{"not under refs/", "ralph/x", head},
		{"a branch", "refs/heads/main", head},
		{"unknown object", "refs/ralph/x", strings.Repeat("1", 40)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := gitops.KeepAlive(ctx, dir, tt.ref, tt.hash); err == nil {
				t.Errorf("KeepAlive(%q, %q) succeeded", tt.ref, tt.hash)
			}
		})
	}
}

// The benchmark repository: 200 directories × 100 small files, committed, made once per run.
var bench struct {
	once sync.Once
	dir  string
	err  error
}
