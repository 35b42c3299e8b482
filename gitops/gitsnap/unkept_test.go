package gitsnap

import (
	"context"
	"strings"
	"testing"
)

func TestUnkeptNamesWhatNoCommitKeeps(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	if got, err := Unkept(ctx, dir, func(string) bool { return false }); err != nil || len(got) != 0 {
		t.Fatalf("a clean tree: Unkept = %q, %v", got, err)
	}
	write(t, dir, "a.txt", "changed\n")
	write(t, dir, "new/c.txt", "new\n")
	write(t, dir, "x.log", "ignored\n")
	write(t, dir, "logs/y.log", "ignored\n")
	write(t, dir, ".ralph/state.toml", "ours\n")
	got, err := Unkept(ctx, dir, func(p string) bool { return strings.HasPrefix(p, ".ralph/") })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "a.txt new/c.txt logs/ x.log" {
		t.Errorf("Unkept = %q, want a.txt new/c.txt logs/ x.log", got)
	}
}
