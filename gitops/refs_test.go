package gitops

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestSwapRef(t *testing.T) {
	ctx := context.Background()
	dir, base, tip := forked(t, false)
	err := SwapRef(ctx, dir, "refs/heads/main", tip, tip, "test") // main is not at tip
	if !errors.Is(err, ErrRefMoved) {
		t.Fatalf("SwapRef from a value main does not hold = %v, want ErrRefMoved", err)
	}
	if now := run(t, dir, "rev-parse", "main"); now != base {
		t.Fatalf("a refused swap moved main to %s", now)
	}
	if err := SwapRef(ctx, dir, "refs/heads/main", tip, base, "test"); err != nil {
		t.Fatal(err)
	}
	if now := run(t, dir, "rev-parse", "main"); now != tip {
		t.Fatalf("main is at %s after the swap, want %s", now, tip)
	}
}

func TestResolveRefsExact(t *testing.T) {
	ctx := context.Background()
	dir, base, tip := forked(t, false)
	run(t, dir, "branch", "none/x", tip) // below a missing name: a for-each-ref pattern matches it
	got, err := ResolveRefs(ctx, dir, "refs/heads/main", "refs/heads/side", "refs/heads/none")
	if err != nil || len(got) != 2 || got["refs/heads/main"] != base || got["refs/heads/side"] != tip {
		t.Fatalf("ResolveRefs = %v, %v", got, err)
	}
}

// The merge queue reads the base and the loop's branch on every merge: go-git answers,
// packed or loose, from a linked worktree too, without a git process; a ref it does not
// find is left to git, which says it is missing.
func TestResolveRefsGoGit(t *testing.T) {
	dir, base, tip := forked(t, false)
	run(t, dir, "pack-refs", "--all")
	run(t, dir, "update-ref", "refs/heads/side", tip) // loose again, over its packed copy
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "--detach", wt, base)
	for _, at := range []string{dir, wt} {
		got, ok := refsGoGit(at, []string{"refs/heads/main", "refs/heads/side"})
		if !ok || got["refs/heads/main"] != base || got["refs/heads/side"] != tip {
			t.Fatalf("refsGoGit(%s) = %v, %v; want main %s, side %s", at, got, ok, base, tip)
		}
	}
	if got, ok := refsGoGit(dir, []string{"refs/heads/main", "refs/heads/none"}); ok {
		t.Fatalf("refsGoGit answered %v for a missing ref; git must say so", got)
	}
	run(t, dir, "symbolic-ref", "refs/heads/alias", "refs/heads/side")
	if got, err := ResolveRefs(context.Background(), dir, "refs/heads/alias"); err != nil || got["refs/heads/alias"] != tip {
		t.Fatalf("ResolveRefs of a symbolic ref = %v, %v; want %s", got, err, tip)
	}
}

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
