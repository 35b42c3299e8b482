package fleet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/history"
)

func TestMain(m *testing.M) { gittest.Main(m, nil) }

// git runs git in dir, failing the test on an error.
var git = gittest.Git

// newRepo is a repository with one commit on main (gittest.NewRepo).
var newRepo = gittest.NewRepo

func TestCheckName(t *testing.T) {
	for _, name := range []string{"a", "fix-login", "v1.2", "A_b-9"} {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"", "main", "a/b", "..", "a..b", ".a", "a.", "-a", "a.lock", "a b", "é", "a\nb", strings.Repeat("x", 65)} {
		var e *Error
		if err := CheckName(name); !errors.As(err, &e) || e.Hint() == "" {
			t.Errorf("CheckName(%q) = %v, want an error with a hint", name, err)
		}
	}
}

func TestOpenCreatesThenReuses(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	head := git(t, repo, "rev-parse", "HEAD")
	got, err := Open(ctx, repo, "one", "")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(filepath.Dir(repo), "repo.ralph-worktrees", "one")
	if !got.Created || got.Path != want || got.BaseBranch != "refs/heads/main" || got.BaseCommit != head || got.Branch != "refs/heads/ralph/one" {
		t.Fatalf("Open = %+v, want created at %s from main at %s", got, want, head)
	}
	if b := git(t, want, "symbolic-ref", "HEAD"); b != "refs/heads/ralph/one" {
		t.Errorf("the worktree is on %s", b)
	}
	// the main tree's status never sees the worktree
	if st := git(t, repo, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("the main tree sees %q", st)
	}
	git(t, want, "commit", "-q", "--allow-empty", "-m", "work")
	again, err := Open(ctx, repo, "one", "main")
	if err != nil || again.Created || again.Path != want || again.BaseCommit != head {
		t.Fatalf("Open again = %+v, %v; want the same loop reused", again, err)
	}
	// from inside the worktree too
	if again, err = Open(ctx, want, "one", ""); err != nil || again.Created {
		t.Fatalf("Open from the worktree = %+v, %v", again, err)
	}
}

func TestOpenAfterTheDirectoryWasDeleted(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	first, err := Open(ctx, repo, "gone", "")
	if err != nil {
		t.Fatal(err)
	}
	git(t, first.Path, "commit", "-q", "--allow-empty", "-m", "kept")
	if err := os.RemoveAll(first.Path); err != nil {
		t.Fatal(err)
	}
	m, err := Find(ctx, repo, "gone")
	if err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("Find of a deleted worktree = %+v, %v", m, err)
	}
	again, err := Open(ctx, repo, "gone", "")
	if err != nil || !again.Created || again.BaseCommit != first.BaseCommit {
		t.Fatalf("Open after deletion = %+v, %v", again, err)
	}
	if msg := git(t, again.Path, "log", "-1", "--format=%s"); msg != "kept" {
		t.Errorf("the recreated worktree is at %q, want the branch's own commit", msg)
	}
}

func TestOpenRefuses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, base string
		setup      func(t *testing.T, repo string)
		want       string
	}{
		{"bad-base", "nosuch", nil, "--base nosuch names no commit"},
		{"option-base", "--all", nil, "names no commit"},
		{"x", "", func(t *testing.T, repo string) { git(t, repo, "branch", "ralph/x") }, "the branch ralph/x exists, and no loop"},
		{"y", "", func(t *testing.T, repo string) {
			git(t, repo, "worktree", "add", "-q", "-b", "ralph/y", filepath.Join(filepath.Dir(repo), "elsewhere"))
		}, "the branch ralph/y is checked out in %DIR%/elsewhere, which"},
		{"z", "", func(t *testing.T, repo string) { git(t, repo, "checkout", "-q", "-b", "ralph/z") }, "the branch ralph/z is checked out in the main work tree"},
		{"file", "", func(t *testing.T, repo string) {
			os.MkdirAll(filepath.Dir(Place(repo, "file")), 0o755)
			os.WriteFile(Place(repo, "file"), []byte("mine"), 0o644)
		}, "is taken by something"},
		{"link", "", func(t *testing.T, repo string) {
			os.MkdirAll(filepath.Dir(Place(repo, "link")), 0o755)
			os.Symlink(t.TempDir(), Place(repo, "link"))
		}, "is taken by something"},
		{"parent", "", func(t *testing.T, repo string) {
			os.Symlink(t.TempDir(), filepath.Dir(Place(repo, "parent")))
		}, "is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t)
			if tc.setup != nil {
				tc.setup(t, repo)
			}
			_, err := Open(ctx, repo, tc.name, tc.base)
			want := strings.ReplaceAll(tc.want, "%DIR%", filepath.Dir(repo))
			var e *Error
			if err == nil || !strings.Contains(err.Error(), want) || !errors.As(err, &e) || e.Hint() == "" {
				t.Fatalf("Open = %v, want %q with a hint", err, want)
			}
			if _, found, _ := history.LoadWorktreeLoop(filepath.Join(repo, ".git"), tc.name); found && tc.name != "file" && tc.name != "link" && tc.name != "parent" {
				t.Errorf("a refused loop was recorded")
			}
		})
	}
}

func TestOpenRefusesAnotherBaseAndAWorktreeTurnedSymlink(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	git(t, repo, "branch", "other")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "second")
	l, err := Open(ctx, repo, "b", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, repo, "b", "other"); err == nil || !strings.Contains(err.Error(), "started from main at") {
		t.Errorf("another --base = %v", err)
	}
	// moved with git worktree move: found at its new place, which is remembered
	moved := l.Path + ".moved"
	git(t, repo, "worktree", "move", l.Path, moved)
	if got, err := Open(ctx, repo, "b", ""); err != nil || got.Path != moved {
		t.Fatalf("Open after a move = %+v, %v", got, err)
	}
	if rec, _, _ := history.LoadWorktreeLoop(filepath.Join(repo, ".git"), "b"); rec.Path != moved {
		t.Errorf("the record kept %s", rec.Path)
	}
	git(t, repo, "worktree", "move", moved, l.Path)
	// a loop whose branch was deleted starts again, from a new base if asked
	if _, err := Open(ctx, repo, "c", ""); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "worktree", "remove", Place(repo, "c"))
	git(t, repo, "branch", "-D", "ralph/c")
	if got, err := Open(ctx, repo, "c", "other"); err != nil || !got.Created || got.BaseBranch != "refs/heads/other" {
		t.Errorf("Open of a loop whose branch was deleted = %+v, %v", got, err)
	}
	moved = l.Path + ".real"
	if err := os.Rename(l.Path, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, l.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, repo, "b", ""); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a worktree replaced by a symlink = %v", err)
	}
}

func TestMembersAndAhead(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	for _, name := range []string{"b", "a"} {
		if _, err := Open(ctx, repo, name, ""); err != nil {
			t.Fatal(err)
		}
	}
	a := Place(repo, "a")
	git(t, a, "commit", "-q", "--allow-empty", "-m", "one")
	git(t, a, "commit", "-q", "--allow-empty", "-m", "two")
	// a worktree of the user's: listed once a loop has run there
	user := filepath.Join(filepath.Dir(repo), "mine")
	git(t, repo, "worktree", "add", "-q", "-b", "mine", user)
	list, bad, err := Members(ctx, repo)
	if err != nil || bad != nil {
		t.Fatal(err, bad)
	}
	if names := memberNames(list); names != "main a b" {
		t.Errorf("members %q, want main a b", names)
	}
	os.MkdirAll(filepath.Join(user, ".ralph"), 0o755)
	os.WriteFile(history.StatePath(user), []byte("schema_version = 1\n"), 0o644)
	list, _, _ = Members(ctx, a)
	if names := memberNames(list); names != "main a b mine" {
		t.Errorf("members %q, want main a b mine", names)
	}
	for name, want := range map[string]int{"a": 2, "b": 0} {
		m, err := Find(ctx, user, name)
		if err != nil {
			t.Fatal(err)
		}
		if n, ok, err := Ahead(ctx, repo, m); n != want || !ok || err != nil {
			t.Errorf("Ahead(%s) = %d, %v, %v; want %d", name, n, ok, err, want)
		}
	}
	if m, err := Find(ctx, a, "main"); err != nil || m.Path != repo {
		t.Errorf("Find(main) = %+v, %v", m, err)
	}
	if _, ok, _ := Ahead(ctx, repo, list[0]); ok {
		t.Error("the main tree's loop has a base")
	}
	// a record written by hand under the main tree's name is reported, not listed
	history.SaveWorktreeLoop(filepath.Join(repo, ".git"), history.WorktreeLoop{Name: "main", Branch: "refs/heads/ralph/main", Path: "/x"})
	list, bad, _ = Members(ctx, repo)
	if names := memberNames(list); names != "main a b mine" || len(bad) != 1 || !strings.Contains(bad[0].Error(), "main.toml") {
		t.Errorf("members %q, bad %v; want main a b mine and main.toml reported", names, bad)
	}
	if _, err := Find(ctx, repo, "nosuch"); err == nil || !strings.Contains(err.Error(), `no loop named "nosuch"`) {
		t.Errorf("Find(nosuch) = %v", err)
	}
}

func memberNames(list []Member) string {
	var names []string
	for _, m := range list {
		names = append(names, m.Name)
	}
	return strings.Join(names, " ")
}
