package gitwt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
)

// Worktree is one work tree of a repository as `git worktree list --porcelain` reports it.
type Worktree struct {
	Path     string // absolute, as git recorded it
	Head     string // the commit checked out; "" in a bare repository
	Branch   string // the full name of the branch checked out, "" when detached or bare
	Bare     bool
	Locked   bool
	Prunable bool // its directory is gone: `git worktree prune` would drop it
}

// List lists the work trees of dir's repository, the main one first.
//
// `git worktree add` writes a new worktree's files under worktrees/ one after the other,
// not atomically, and `git worktree list` dies when it reads one half written ("fatal:
// failed to read .git/worktrees/NAME/commondir: Success"): the list is asked again a few
// times before that counts as an error, since the loops of a best-of add their worktrees
// at the same moment as others list them.
func List(ctx context.Context, dir string) ([]Worktree, error) {
	var err error
	for try := 1; ; try++ {
		var out string
		if out, err = gitops.Git(ctx, dir, "worktree", "list", "--porcelain", "-z"); err == nil {
			return parseWorktrees(out), nil
		}
		if try == worktreeListTries || !halfAdded(err) || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(try) * 20 * time.Millisecond)
	}
	return nil, gitops.AsNotRepo(dir, fmt.Errorf("listing the worktrees: %w", err))
}

// worktreeListTries bounds the lists asked while a worktree is being added (about 1 s).
const worktreeListTries = 10

// halfAdded reports whether git failed on a worktree's administrative file, as it does
// on one that `git worktree add` is still writing.
func halfAdded(err error) bool {
	var gitErr *gitops.Error
	return errors.As(err, &gitErr) && strings.Contains(gitErr.Stderr, "failed to read") &&
		strings.Contains(gitErr.Stderr, "worktrees")
}

// parseWorktrees reads the -z porcelain form: one attribute per NUL-terminated field, an
// empty field after each work tree. Paths may hold any byte but NUL, newlines included.
func parseWorktrees(out string) []Worktree {
	var list []Worktree
	var cur *Worktree
	for _, field := range strings.Split(out, "\x00") {
		name, value, _ := strings.Cut(field, " ")
		switch {
		case field == "":
			cur = nil
		case name == "worktree":
			list = append(list, Worktree{Path: value})
			cur = &list[len(list)-1]
		case cur == nil:
		case name == "HEAD":
			cur.Head = value
		case name == "branch":
			cur.Branch = value
		case name == "bare":
			cur.Bare = true
		case name == "locked":
			cur.Locked = true
		case name == "prunable":
			cur.Prunable = true
		}
	}
	return list
}

// AddOnBranch creates a linked work tree at path (which must not exist) with branch
// checked out. With a start commit it creates the branch there first, and fails if the
// branch exists; without one the branch must exist. No hook runs (see gitops's noHooks), so a
// post-checkout hook of the repository cannot act on the new tree.
func AddOnBranch(ctx context.Context, dir, path, branch, start string) error {
	args := []string{"worktree", "add", "--quiet", path, branch}
	if start != "" {
		args = []string{"worktree", "add", "--quiet", "--no-track", "-b", branch, path, start}
	}
	if _, err := gitops.Git(ctx, dir, args...); err != nil {
		return fmt.Errorf("adding the worktree %s on %s: %w", path, branch, err)
	}
	return nil
}

// Prune forgets the work trees whose directories are gone (`git worktree prune`);
// their branches stay.
func Prune(ctx context.Context, dir string) error {
	if _, err := gitops.Git(ctx, dir, "worktree", "prune"); err != nil {
		return fmt.Errorf("pruning the worktrees whose directories are gone: %w", err)
	}
	return nil
}

// MainPath is the path `git worktree list` gives the main work tree of the
// repository whose common git directory is commonDir, found as git finds it — the real
// path of that directory without its "/.git" (a bare repository: the directory itself) —
// so that a caller that has the common directory spares a process.
func MainPath(commonDir string) (string, error) {
	real, err := filepath.EvalSymlinks(commonDir)
	if err != nil {
		return "", fmt.Errorf("finding the main work tree: %w", err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", fmt.Errorf("finding the main work tree: %w", err)
	}
	if main, ok := strings.CutSuffix(real, string(filepath.Separator)+".git"); ok && main != "" {
		return main, nil
	}
	return real, nil
}

// Add checks out commit, detached, in a new linked worktree at path (which must
// not exist), leaving the work tree at dir and its branch alone.
func Add(ctx context.Context, dir, path, commit string) error {
	if _, err := gitops.Git(ctx, dir, "worktree", "add", "--quiet", "--detach", path, commit); err != nil {
		return fmt.Errorf("checking out %s in a temporary worktree: %w", short(commit), err)
	}
	return nil
}

// short is the abbreviated form of a commit hash, for messages.
func short(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}
