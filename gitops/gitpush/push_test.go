package gitpush

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

// pushRepos makes a bare remote and a clone of it with one commit on main.
func pushRepos(t *testing.T) (work, bare string) {
	t.Helper()
	ctx := context.Background()
	base := t.TempDir()
	bare, work = filepath.Join(base, "remote.git"), filepath.Join(base, "work")
	run(t, base, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	run(t, base, "clone", "--quiet", bare, work)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
	if _, err := gitops.CommitAll(ctx, work, "first"); err != nil {
		t.Fatal(err)
	}
	return work, bare
}

func TestTargetDefaultsAndPush(t *testing.T) {
	ctx := context.Background()
	work, bare := pushRepos(t)
	target, err := ResolveTarget(ctx, work, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if target != (Target{Remote: "origin", Branch: "main", Local: "main"}) {
		t.Errorf("target = %+v", target)
	}
	if err := Push(ctx, work, target); err != nil {
		t.Fatal(err)
	}
	head, _ := gitops.Git(ctx, work, "rev-parse", "HEAD")
	if got, _ := gitops.Git(ctx, bare, "rev-parse", "main"); got != head {
		t.Errorf("remote main = %s, want %s", got, head)
	}
	run(t, work, "branch", "--set-upstream-to=origin/main")
	run(t, work, "checkout", "--quiet", "-b", "feature", "--track", "origin/main")
	if target, _ = ResolveTarget(ctx, work, "", ""); target.Branch != "main" || target.Local != "feature" {
		t.Errorf("with upstream origin/main: %+v", target)
	}
	if target, _ = ResolveTarget(ctx, work, "", "other"); target.Branch != "other" {
		t.Errorf("configured branch: %+v", target)
	}
}

func TestPushRejectedKeepsGitsMessage(t *testing.T) {
	ctx := context.Background()
	work, bare := pushRepos(t)
	target, _ := ResolveTarget(ctx, work, "", "")
	if err := Push(ctx, work, target); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	run(t, ".", "clone", "--quiet", bare, other)
	os.WriteFile(filepath.Join(other, "b.txt"), []byte("b\n"), 0o644)
	gitops.CommitAll(ctx, other, "theirs")
	run(t, other, "push", "--quiet", "origin", "main")
	os.WriteFile(filepath.Join(work, "c.txt"), []byte("c\n"), 0o644)
	gitops.CommitAll(ctx, work, "ours")
	ours, _ := gitops.Git(ctx, work, "rev-parse", "HEAD")
	err := Push(ctx, work, target)
	if err == nil || !strings.Contains(err.Error(), "rejected") || strings.Contains(err.Error(), "hint:") {
		t.Fatalf("Push = %v, want git's rejection without hints", err)
	}
	if head, _ := gitops.Git(ctx, work, "rev-parse", "HEAD"); head != ours {
		t.Errorf("local HEAD moved to %s after a rejected push", head)
	}
}

func TestTargetErrors(t *testing.T) {
	ctx := context.Background()
	work, _ := pushRepos(t)
	if _, err := ResolveTarget(ctx, work, "nowhere", ""); !errors.Is(err, ErrNoRemote) {
		t.Errorf("unknown remote: %v", err)
	}
	run(t, work, "checkout", "--quiet", "--detach")
	if _, err := ResolveTarget(ctx, work, "", ""); !errors.Is(err, gitops.ErrDetached) {
		t.Errorf("detached HEAD: %v", err)
	}
}
