package gitmerge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The checked-out branch main moves from base to tip (side's commit, which adds
// side.txt) under a tree with edits of a.txt: the tree follows, the edits kept.
func TestMoveCheckoutKeepsEdits(t *testing.T) {
	ctx := context.Background()
	dir, base, _ := forked(t, false)
	tip := run(t, dir, "rev-parse", "side")
	write(t, dir, "a.txt", "mine\n")
	write(t, dir, "dir/b.txt", "staged\n")
	run(t, dir, "add", "dir/b.txt")
	if err := CheckMoveCheckout(ctx, dir, base, tip); err != nil {
		t.Fatalf("CheckMoveCheckout = %v, want nil: the edits are in files the move keeps", err)
	}
	run(t, dir, "update-ref", "refs/heads/main", tip, base)
	if got, err := IndexDiffers(ctx, dir, base); err != nil || !slices.Equal(got, []string{"dir/b.txt"}) {
		t.Fatalf("before the move, the index differs from base in %q, %v; want the staged edit only", got, err)
	}
	if err := MoveCheckout(ctx, dir, base, tip); err != nil {
		t.Fatal(err)
	}
	if st := run(t, dir, "status", "--porcelain", "--untracked-files=no"); st != " M a.txt\nM  dir/b.txt" {
		t.Fatalf("status after the move = %q, want the user's two edits only", st)
	}
	if got, _ := IndexDiffers(ctx, dir, tip); !slices.Equal(got, []string{"dir/b.txt"}) {
		t.Fatalf("after the move, the index differs from tip in %q; want the staged edit only", got)
	}
}

// An edit of a file the move writes, or an untracked file where it brings one: git
// refuses, naming the path, and nothing changes.
func TestMoveCheckoutRefuses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, path string }{{"edited", "a.txt"}, {"untracked", "side.txt"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir, base, _ := forked(t, false)
			write(t, dir, "a.txt", "changed on side\n")
			run(t, dir, "commit", "-q", "-a", "-m", "a changes")
			run(t, dir, "merge", "-q", "side", "-m", "with side") // tip changes a.txt and adds side.txt
			tip := run(t, dir, "rev-parse", "HEAD")
			run(t, dir, "reset", "-q", "--hard", base)
			write(t, dir, tc.path, "mine\n")
			for _, do := range []func(context.Context, string, string, string) error{CheckMoveCheckout, MoveCheckout} {
				var refused *CheckoutRefused
				if err := do(ctx, dir, base, tip); !errors.As(err, &refused) || !slices.Equal(refused.Paths, []string{tc.path}) {
					t.Fatalf("err = %v, want a refusal naming %s", err, tc.path)
				}
			}
			if data, _ := os.ReadFile(filepath.Join(dir, tc.path)); string(data) != "mine\n" {
				t.Fatalf("%s = %q: the user's file was touched", tc.path, data)
			}
		})
	}
}

// A file touched but unchanged since the index was written is no change of the user's.
func TestCheckMoveCheckoutTouchedFile(t *testing.T) {
	ctx := context.Background()
	dir, base, _ := forked(t, true)
	tip := run(t, dir, "rev-parse", "side")
	run(t, dir, "reset", "-q", "--hard", "HEAD~1") // main's a.txt is the first commit's; side changes it
	base = run(t, dir, "rev-parse", "HEAD")
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "a.txt"), later, later)
	if err := CheckMoveCheckout(ctx, dir, base, tip); err != nil {
		t.Fatalf("CheckMoveCheckout with a.txt touched = %v, want nil", err)
	}
}

func TestRefusedPaths(t *testing.T) {
	for _, tc := range []struct {
		stderr string
		want   []string
	}{
		{"error: Entry 'a b.txt' not uptodate. Cannot merge.\n", []string{"a b.txt"}},
		{"error: Untracked working tree file 'new.txt' would be overwritten by merge.\n", []string{"new.txt"}},
		{"error: Your local changes to the following files would be overwritten by merge:\n\ta.txt\n\tdir/b.txt\nPlease commit your changes or stash them before you merge.\nAborting\n", []string{"a.txt", "dir/b.txt"}},
		{"fatal: Unable to create '/r/.git/index.lock': File exists.\n", nil},
	} {
		if got := refusedPaths(tc.stderr); !slices.Equal(got, tc.want) {
			t.Errorf("refusedPaths(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}

// A move killed after writing files, before the index: the files that hold exactly the
// target's version are taken into the index; a file of the user's is not.
func TestAdoptWritten(t *testing.T) {
	ctx := context.Background()
	dir, base, _ := forked(t, false)
	write(t, dir, "a.txt", "two\n")
	write(t, dir, "run.sh", "echo\n")
	os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "target")
	target := run(t, dir, "rev-parse", "HEAD")
	run(t, dir, "reset", "-q", "--hard", base)
	write(t, dir, "a.txt", "two\n")      // as the move wrote it
	write(t, dir, "run.sh", "echo\n")    // the right content, but not executable
	write(t, dir, "other.txt", "mine\n") // not in the target
	n, err := AdoptWritten(ctx, dir, target, []string{"a.txt", "run.sh", "other.txt"})
	if err != nil || n != 1 {
		t.Fatalf("AdoptWritten = %d, %v; want a.txt only", n, err)
	}
	if got, _ := IndexDiffers(ctx, dir, target); slices.Contains(got, "a.txt") || !slices.Contains(got, "run.sh") {
		t.Fatalf("the index differs from the target in %q: want a.txt at its version, run.sh not", got)
	}
	write(t, dir, "a.txt", "mine\n")
	run(t, dir, "reset", "-q")
	if n, _ := AdoptWritten(ctx, dir, target, []string{"a.txt"}); n != 0 {
		t.Fatal("a file of the user's was taken into the index")
	}
}
