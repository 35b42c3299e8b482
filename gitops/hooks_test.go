package gitops

import (
	"context"
	"path/filepath"
	"testing"
)

func TestHooksDir(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	tests := []struct {
		name      string
		hooksPath string // "" = not set
		want      string
	}{
		{"default", "", filepath.Join(dir, ".git", "hooks")},
		{"relative core.hooksPath is relative to the work tree", "githooks", filepath.Join(dir, "githooks")},
		{"absolute core.hooksPath", "/somewhere/hooks", "/somewhere/hooks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.hooksPath == "" {
				Git(ctx, dir, "config", "--unset", "core.hooksPath")
			} else {
				run(t, dir, "config", "core.hooksPath", tt.hooksPath)
			}
			got, err := HooksDir(ctx, dir)
			if err != nil || got != tt.want {
				t.Errorf("HooksDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestHooksDirOfLinkedWorktreeIsShared(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	linked := filepath.Join(t.TempDir(), "linked")
	run(t, dir, "worktree", "add", "-q", "--detach", linked)
	got, err := HooksDir(ctx, linked)
	if want := filepath.Join(dir, ".git", "hooks"); err != nil || got != want {
		t.Errorf("HooksDir(linked) = %q, %v; want %q", got, err, want)
	}
}

func TestQuickRoot(t *testing.T) {
	dir := committedRepo(t)
	sub := filepath.Join(dir, "dir")
	linked := filepath.Join(t.TempDir(), "linked")
	run(t, dir, "worktree", "add", "-q", "--detach", linked)
	for _, tt := range []struct{ name, from, want string }{
		{"top", dir, dir},
		{"subdirectory", sub, dir},
		{"linked worktree (.git is a file)", linked, linked},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := QuickRoot(tt.from); !ok || got != tt.want {
				t.Errorf("QuickRoot(%s) = %q, %v; want %q", tt.from, got, ok, tt.want)
			}
		})
	}
	t.Run("GIT_DIR set: ask git", func(t *testing.T) {
		t.Setenv("GIT_DIR", filepath.Join(dir, ".git"))
		if got, ok := QuickRoot(dir); ok {
			t.Errorf("QuickRoot = %q, true with GIT_DIR set", got)
		}
	})
	t.Run("no repository", func(t *testing.T) {
		if got, ok := QuickRoot(t.TempDir()); ok {
			t.Errorf("QuickRoot = %q, true outside any repository", got)
		}
	})
}

func TestCommitOf(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	run(t, dir, "tag", "-a", "-m", "annotated", "v1")
	tree := run(t, dir, "rev-parse", "HEAD^{tree}")
	for _, tt := range []struct {
		name, rev, want string
		ok              bool
	}{
		{"commit", head, head, true},
		{"annotated tag peels to its commit", run(t, dir, "rev-parse", "v1"), head, true},
		{"tree is no commit", tree, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := CommitOf(ctx, dir, tt.rev)
			if err != nil || ok != tt.ok || got != tt.want {
				t.Errorf("CommitOf(%s) = %q, %v, %v; want %q, %v", tt.rev, got, ok, err, tt.want, tt.ok)
			}
		})
	}
}
