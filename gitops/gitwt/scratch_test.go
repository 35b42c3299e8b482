package gitwt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

// addedScratch adds an empty detached worktree at commit, filled with its files, and
// returns its path and administrative directory.
func addedScratch(t *testing.T, dir, commit string) (path, admin string) {
	t.Helper()
	ctx := context.Background()
	path = filepath.Join(t.TempDir(), ".merge-x")
	if err := AddScratch(ctx, dir, filepath.Join(dir, ".git"), path, commit); err != nil {
		t.Fatal(err)
	}
	if err := Reset(ctx, path, commit); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	admin = strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir: "))
	if err != nil || filepath.Dir(admin) != filepath.Join(dir, ".git", "worktrees") {
		t.Fatalf("git put the worktree's files elsewhere: %q %v", data, err)
	}
	return path, admin
}

func TestRemoveScratch(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common := filepath.Join(dir, ".git")
	path, admin := addedScratch(t, dir, "HEAD")
	// what a validation leaves: build output, a read-only file
	write(t, path, "out/bin.o", "built\n")
	os.Chmod(filepath.Join(path, "a.txt"), 0o444)

	if err := RemoveScratch(ctx, dir, common, path); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{path, admin, filepath.Join(common, "worktrees")} {
		if _, err := os.Lstat(gone); err == nil {
			t.Errorf("%s is still there", gone)
		}
	}
	if list := run(t, dir, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("git still lists the scratch worktree:\n%s", list)
	}
}

func TestRemoveScratchTrustsNoRewrittenGitFile(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common := filepath.Join(dir, ".git")
	victim := t.TempDir()
	write(t, victim, "precious.txt", "keep me\n")
	// a worktree of the user's, named other
	if err := AddScratch(ctx, dir, common, filepath.Join(t.TempDir(), "other"), "HEAD"); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(common, "worktrees", "other")
	for name, gitFile := range map[string]string{
		"names a directory outside":      "gitdir: " + victim + "\n",
		"names the worktrees' directory": "gitdir: " + filepath.Join(common, "worktrees") + "\n",
		"names another worktree's files": "gitdir: " + filepath.Join(common, "worktrees", "other") + "\n",
		"climbs out of the worktrees":    "gitdir: " + filepath.Join(common, "worktrees", "..", "..") + "\n",
		"is relative":                    "gitdir: ../victim\n",
	} {
		t.Run(name, func(t *testing.T) {
			path, admin := addedScratch(t, dir, "HEAD")
			write(t, path, ".git", gitFile) // the validation rewrote it

			RemoveScratch(ctx, dir, common, path)
			if _, err := os.Stat(filepath.Join(victim, "precious.txt")); err != nil {
				t.Fatalf("a file outside the worktree was removed: %v", err)
			}
			if _, err := os.Stat(filepath.Join(other, "gitdir")); err != nil {
				t.Fatalf("another worktree's files were removed: %v", err)
			}
			if _, err := os.Lstat(path); err == nil {
				t.Errorf("the scratch worktree %s is still there", path)
			}
			if _, err := os.Lstat(admin); err == nil {
				t.Errorf("its administrative directory %s is still there", admin)
			}
		})
	}
}

// adminFiles reads the files git keeps for the worktree at path: its .git file and its
// administrative directory's gitdir, commondir and HEAD, with the directory's name.
func adminFiles(t *testing.T, path string) (admin string, files map[string]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	admin = strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir: "))
	files = map[string]string{".git": string(data)}
	for _, name := range []string{"gitdir", "commondir", "HEAD"} {
		data, err := os.ReadFile(filepath.Join(admin, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	return admin, files
}

// The scratch worktree written without git is what `git worktree add --no-checkout
// --detach` makes: the same files, named alike, which git then lists, fills, keeps
// through a prune and removes.
func TestAddScratchWritesWhatGitWrites(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common := filepath.Join(dir, ".git")
	head := run(t, dir, "rev-parse", "HEAD")
	places := t.TempDir()
	byGit := filepath.Join(places, "git", ".merge-x")
	os.Mkdir(filepath.Dir(byGit), 0o755)
	run(t, dir, "worktree", "add", "--quiet", "--no-checkout", "--detach", byGit, head)
	mine := filepath.Join(places, ".merge-x")
	if err := AddScratch(ctx, dir, common, mine, head); err != nil {
		t.Fatal(err)
	}

	gitAdmin, want := adminFiles(t, byGit)
	admin, got := adminFiles(t, mine)
	if _, err := os.Stat(filepath.Join(admin, "logs")); err == nil {
		t.Fatal("git wrote the worktree (its update-ref left a reflog): the test does not test the files written without it")
	}
	if filepath.Base(gitAdmin) != "-merge-x" || filepath.Base(admin) != "-merge-x1" {
		t.Errorf("administrative directories %s and %s, want git's name -merge-x and the next, -merge-x1", gitAdmin, admin)
	}
	want[".git"] = strings.Replace(want[".git"], gitAdmin, admin, 1)
	want["gitdir"] = strings.Replace(want["gitdir"], byGit, mine, 1)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s holds %q, git writes %q", name, got[name], w)
		}
	}
	if _, err := os.Stat(filepath.Join(admin, "locked")); err == nil {
		t.Error("the worktree is left locked")
	}

	run(t, dir, "worktree", "prune")
	if list := run(t, dir, "worktree", "list", "--porcelain"); !strings.Contains(list, "worktree "+mine+"\nHEAD "+head+"\ndetached") {
		t.Errorf("git does not list the worktree as detached at %s:\n%s", head, list)
	}
	if err := Reset(ctx, mine, head); err != nil {
		t.Fatal(err)
	}
	if status := run(t, mine, "status", "--porcelain"); status != "" {
		t.Errorf("the filled worktree is not clean:\n%s", status)
	}
	run(t, dir, "worktree", "remove", mine)
	if _, err := os.Lstat(admin); err == nil {
		t.Error("git worktree remove left its administrative directory")
	}
}

// Where git might write anything else, git adds the worktree: a configuration it must
// read, a name it sanitizes otherwise, a commit that is not a full hash, a place already
// registered (whose refusal, in git's words, the caller answers with a prune).
func TestAddScratchLeavesTheUnusualToGit(t *testing.T) {
	ctx := context.Background()
	for name, setup := range map[string]func(t *testing.T, dir string) (path, commit string){
		"extensions": func(t *testing.T, dir string) (string, string) {
			run(t, dir, "config", "extensions.worktreeConfig", "true")
			return filepath.Join(t.TempDir(), ".merge-x"), run(t, dir, "rev-parse", "HEAD")
		},
		"an include": func(t *testing.T, dir string) (string, string) {
			run(t, dir, "config", "include.path", "/nonexistent")
			return filepath.Join(t.TempDir(), ".merge-x"), run(t, dir, "rev-parse", "HEAD")
		},
		"a sparse checkout": func(t *testing.T, dir string) (string, string) {
			run(t, dir, "config", "core.sparseCheckout", "true")
			return filepath.Join(t.TempDir(), ".merge-x"), run(t, dir, "rev-parse", "HEAD")
		},
		"a shared repository": func(t *testing.T, dir string) (string, string) {
			run(t, dir, "config", "core.sharedRepository", "group")
			return filepath.Join(t.TempDir(), ".merge-x"), run(t, dir, "rev-parse", "HEAD")
		},
		"a name git sanitizes": func(t *testing.T, dir string) (string, string) {
			return filepath.Join(t.TempDir(), "a.lock"), run(t, dir, "rev-parse", "HEAD")
		},
		"a revision": func(t *testing.T, dir string) (string, string) {
			return filepath.Join(t.TempDir(), ".merge-x"), "HEAD"
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := committedRepo(t)
			path, commit := setup(t, dir)
			if err := AddScratch(ctx, dir, filepath.Join(dir, ".git"), path, commit); err != nil {
				t.Fatal(err)
			}
			admin, _ := adminFiles(t, path)
			if _, err := os.Stat(filepath.Join(admin, "logs", "HEAD")); err != nil {
				t.Errorf("the worktree was not added by git (no reflog of its HEAD): %v", err)
			}
		})
	}

	t.Run("a place already registered", func(t *testing.T) {
		dir := committedRepo(t)
		head := run(t, dir, "rev-parse", "HEAD")
		path := filepath.Join(t.TempDir(), ".merge-x")
		if err := AddScratch(ctx, dir, filepath.Join(dir, ".git"), path, head); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(path) // deleted by hand: git still has it
		err := AddScratch(ctx, dir, filepath.Join(dir, ".git"), path, head)
		if err == nil || !strings.Contains(err.Error(), "already registered") {
			t.Fatalf("adding a registered place again: %v, want git's refusal", err)
		}
	})
}

// A scratch worktree filled with a tree and its HEAD detached at a commit of that tree
// is what `git reset --hard` to the commit leaves: HEAD there, nothing changed, the
// files of the commit.
func TestFillAndDetachScratchHead(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common := filepath.Join(dir, ".git")
	first := run(t, dir, "rev-parse", "HEAD")
	write(t, dir, "dir/b.txt", "changed\n")
	write(t, dir, "new.txt", "new\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "second")
	second := run(t, dir, "rev-parse", "HEAD")
	tree := run(t, dir, "rev-parse", "HEAD^{tree}")

	for name, tt := range map[string]struct{ path, headCommon string }{
		"written without git": {filepath.Join(t.TempDir(), ".merge-x"), common},
		"added by git":        {filepath.Join(t.TempDir(), "a.lock"), common}, // a name git sanitizes
		// a layout it cannot check (here: the wrong common directory): git's update-ref
		"HEAD left to git": {filepath.Join(t.TempDir(), ".merge-y"), t.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			path := tt.path
			if err := AddScratch(ctx, dir, common, path, first); err != nil {
				t.Fatal(err)
			}
			if err := Fill(ctx, path, tree); err != nil {
				t.Fatal(err)
			}
			if err := DetachScratchHead(ctx, tt.headCommon, path, second); err != nil {
				t.Fatal(err)
			}
			if head := run(t, path, "rev-parse", "HEAD"); head != second {
				t.Errorf("HEAD is %s, want %s", head, second)
			}
			if branch, err := gitops.Git(ctx, path, "symbolic-ref", "-q", "HEAD"); err == nil {
				t.Errorf("HEAD is on a branch, %s, not detached", branch)
			}
			if status := run(t, path, "status", "--porcelain", "--untracked-files=all"); status != "" {
				t.Errorf("the worktree differs from its HEAD:\n%s", status)
			}
			if data, err := os.ReadFile(filepath.Join(path, "new.txt")); string(data) != "new\n" {
				t.Errorf("new.txt holds %q (%v)", data, err)
			}
			if _, err := os.Stat(filepath.Join(path, "HEAD.lock")); err == nil {
				t.Error("a HEAD.lock is left")
			}
		})
	}
}

// An add killed between its two files leaves an administrative directory, locked, that
// names the scratch place while the place has no .git: removing the scratch worktree
// forgets it, so that the next merge can add it again (git would refuse the place as
// "missing but locked"). An add killed before its gitdir file leaves one that names no
// place, which does not send the next adds to git.
func TestRemoveScratchAfterAHalfAdd(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	common := filepath.Join(dir, ".git")
	head := run(t, dir, "rev-parse", "HEAD")
	path := filepath.Join(t.TempDir(), ".merge-x")
	half := filepath.Join(common, "worktrees", "-merge-x")
	write(t, half, "locked", "initializing")
	write(t, half, "gitdir", filepath.Join(path, ".git")+"\n")
	os.Mkdir(path, 0o755)
	write(t, filepath.Join(common, "worktrees", "-merge-y"), "locked", "initializing") // before its gitdir

	RemoveScratch(ctx, dir, common, path)
	if _, err := os.Lstat(half); err == nil {
		t.Fatal("the half-added worktree's administrative directory is still there")
	}
	if err := AddScratch(ctx, dir, common, path, head); err != nil {
		t.Fatalf("adding the scratch worktree again: %v", err)
	}
	admin, _ := adminFiles(t, path)
	if _, err := os.Stat(filepath.Join(admin, "logs")); err == nil {
		t.Error("git added it: the half-made entry without a gitdir sent the add to git")
	}
}
