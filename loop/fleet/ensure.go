package fleet

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/history"
)

// Opened is a worktree loop ready to run: its bookkeeping, and whether this call created
// its worktree (false: the loop's worktree was there and is reused).
type Opened struct {
	history.WorktreeLoop
	Created bool
}

// repo is what Open needs to know of the repository: its work trees and common git dir.
type repo struct {
	dir       string // where git commands run: any work tree of the repository
	main      gitwt.Worktree
	worktrees []gitwt.Worktree
	common    string
}

// readRepo lists the work trees of dir's repository.
func readRepo(ctx context.Context, dir string) (repo, error) {
	list, err := gitwt.List(ctx, dir)
	if err != nil {
		return repo{}, err
	}
	if len(list) == 0 {
		return repo{}, fmt.Errorf("git listed no work tree for %s", dir)
	}
	common, err := gitops.CommonDir(ctx, dir)
	if err != nil {
		return repo{}, err
	}
	return repo{dir: dir, main: list[0], worktrees: list, common: common}, nil
}

// Place is where the worktree of the loop name goes: <main tree>.ralph-worktrees/NAME, a
// sibling of the main work tree. Outside the main tree, so that no agent's `git add -A` or
// file search there sees it; not inside .git, where an agent working in the worktree
// would still be inside the main tree when it walks up the directories.
func Place(mainTree, name string) string {
	return filepath.Join(filepath.Dir(mainTree), filepath.Base(mainTree)+".ralph-worktrees", name)
}

// Open creates the worktree of the loop name on branch ralph/NAME, started from base (a
// revision; "" is HEAD), or reuses it when it exists. A worktree whose directory was
// deleted by hand is pruned and checked out again on the loop's branch, which kept its
// commits. It refuses what it did not make: a branch ralph/NAME without a loop record, a
// place taken by something else, a worktree that moved to another branch.
func Open(ctx context.Context, dir, name, base string) (Opened, error) {
	if err := CheckName(name); err != nil {
		return Opened{}, err
	}
	r, err := readRepo(ctx, dir)
	if err != nil {
		return Opened{}, err
	}
	lock, err := history.LockWorktreeLoops(r.common)
	if err != nil {
		return Opened{}, err
	}
	defer lock.Release()
	if r, err = readRepo(ctx, dir); err != nil { // another command may have added one meanwhile
		return Opened{}, err
	}
	rec, found, err := history.LoadWorktreeLoop(r.common, name)
	if err != nil {
		return Opened{}, err
	}
	tip, err := gitops.ResolveRef(ctx, r.dir, BranchPrefix+name)
	if err != nil {
		return Opened{}, err
	}
	if found && tip != "" { // the loop goes on on its branch: a new base cannot apply
		if err := sameBase(ctx, r, rec, base); err != nil {
			return Opened{}, err
		}
	}
	if wt, ok := r.checkedOut(BranchPrefix + name); ok {
		return r.reuse(wt, name, rec, found)
	}
	return r.create(ctx, name, base, tip, rec, found)
}

// checkedOut finds the work tree that has branch checked out, leaving out those whose
// directory is gone (create prunes them).
func (r repo) checkedOut(branch string) (gitwt.Worktree, bool) {
	for _, wt := range r.worktrees {
		if wt.Branch == branch && !wt.Prunable {
			return wt, true
		}
	}
	return gitwt.Worktree{}, false
}

// reuse checks that the work tree found on the loop's branch is the loop's own.
func (r repo) reuse(wt gitwt.Worktree, name string, rec history.WorktreeLoop, found bool) (Opened, error) {
	short := strings.TrimPrefix(BranchPrefix, "refs/heads/") + name
	switch {
	case samePath(wt.Path, r.main.Path):
		return Opened{}, &Error{Err: fmt.Errorf("the branch %s is checked out in the main work tree", short),
			Advice: "check out another branch there, or pick another name"}
	case !found:
		return Opened{}, &Error{Err: fmt.Errorf("the branch %s is checked out in %s, which 'git ralph loop --worktree' did not make", short, wt.Path),
			Advice: "pick another name, or remove that worktree ('git worktree remove')"}
	}
	if err := isPlainDir(wt.Path); err != nil {
		return Opened{}, err
	}
	if rec.Path != wt.Path { // moved with `git worktree move`: the loop goes with it
		rec.Path = wt.Path
		if err := history.SaveWorktreeLoop(r.common, rec); err != nil {
			return Opened{}, err
		}
	}
	return Opened{WorktreeLoop: rec}, nil
}

// create makes the loop's worktree: on its existing branch (at tip) when the loop has a
// record (its directory was deleted by hand), else on a new branch at base (a loop whose
// branch was deleted starts again).
func (r repo) create(ctx context.Context, name, base, tip string, rec history.WorktreeLoop, found bool) (Opened, error) {
	branch := BranchPrefix + name
	if tip != "" && !found {
		return Opened{}, &Error{Err: fmt.Errorf("the branch ralph/%s exists, and no loop of that name was started here", name),
			Advice: fmt.Sprintf("pick another name, or delete the branch if you do not need it: git branch -D ralph/%s", name)}
	}
	if err := gitwt.Prune(ctx, r.dir); err != nil { // a loop's directory deleted by hand
		return Opened{}, err
	}
	path := Place(r.main.Path, name)
	if err := r.checkFree(path); err != nil {
		return Opened{}, err
	}
	if tip != "" {
		if err := gitwt.AddOnBranch(ctx, r.dir, path, strings.TrimPrefix(branch, "refs/heads/"), ""); err != nil {
			return Opened{}, err
		}
		rec.Path = path
		rec.DiscardedAt, rec.Backup = time.Time{}, "" // a discarded loop whose branch was restored lives again
		return Opened{WorktreeLoop: rec, Created: true}, history.SaveWorktreeLoop(r.common, rec)
	}
	return r.createBranch(ctx, name, base, path)
}

// createBranch starts the loop's branch at base in a new worktree at path. The record is
// written first: a crash before the worktree exists leaves a record without a branch,
// which the next Open replaces, rather than a branch Open would refuse as not its own.
func (r repo) createBranch(ctx context.Context, name, base, path string) (Opened, error) {
	commit, baseBranch, err := resolveBase(ctx, r.dir, base)
	if err != nil {
		return Opened{}, err
	}
	rec := history.WorktreeLoop{Name: name, Branch: BranchPrefix + name, Path: path,
		BaseBranch: baseBranch, BaseCommit: commit, CreatedAt: time.Now().UTC()}
	if err := history.SaveWorktreeLoop(r.common, rec); err != nil {
		return Opened{}, err
	}
	if err := gitwt.AddOnBranch(ctx, r.dir, path, "ralph/"+name, commit); err != nil {
		return Opened{}, err
	}
	return Opened{WorktreeLoop: rec, Created: true}, nil
}

// resolveBase finds the commit a new loop starts from, and its branch when base names one.
func resolveBase(ctx context.Context, dir, base string) (commit, branch string, err error) {
	rev := base
	if rev == "" {
		rev = "HEAD"
	}
	commit, branch, ok, err := gitops.ResolveCommit(ctx, dir, rev)
	if err != nil {
		return "", "", err
	}
	if !ok {
		if base == "" {
			return "", "", &Error{Err: errors.New("HEAD names no commit yet"), Advice: "make a first commit, or give the loop's start with --base REV"}
		}
		return "", "", &Error{Err: fmt.Errorf("--base %s names no commit", base), Advice: "give a branch, tag or commit of this repository ('git log --oneline' lists commits)"}
	}
	return commit, branch, nil
}

// sameBase refuses a --base that differs from the one a loop already has: the branch
// exists and moving it would lose or mix the loop's work.
func sameBase(ctx context.Context, r repo, rec history.WorktreeLoop, base string) error {
	if base == "" {
		return nil
	}
	commit, branch, ok, err := gitops.ResolveCommit(ctx, r.dir, base)
	if err != nil || (ok && (commit == rec.BaseCommit || (branch != "" && branch == rec.BaseBranch))) {
		return err
	}
	was := shortHash(rec.BaseCommit)
	if rec.BaseBranch != "" {
		was = strings.TrimPrefix(rec.BaseBranch, "refs/heads/") + " at " + was
	}
	return &Error{Err: fmt.Errorf("the loop %s exists and started from %s, not from --base %s", rec.Name, was, base),
		Advice: "leave out --base to resume it, or pick another name for a loop from " + base}
}

// checkFree refuses a place that is taken: by any file, directory or symlink, or by a
// parent directory that is a symlink (the worktree would land wherever it points).
func (r repo) checkFree(path string) error {
	if info, err := os.Lstat(filepath.Dir(path)); err == nil && !info.IsDir() {
		return &Error{Err: fmt.Errorf("%s is not a directory", filepath.Dir(path)),
			Advice: "git-ralph keeps the loops' worktrees there; move it away"}
	}
	_, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("checking %s: %w", path, err)
	}
	for _, wt := range r.worktrees {
		if samePath(wt.Path, path) {
			return &Error{Err: fmt.Errorf("the worktree %s has %s checked out, not the loop's branch", path, orDetached(wt.Branch)),
				Advice: fmt.Sprintf("check the loop's branch out again there: git -C %s switch %s", path, strings.TrimPrefix(BranchPrefix, "refs/heads/")+filepath.Base(path))}
		}
	}
	return &Error{Err: fmt.Errorf("%s is taken by something that is not the loop's worktree", path),
		Advice: "move it away, or pick another name"}
}

// isPlainDir refuses a work tree path that is no longer a directory of its own.
func isPlainDir(path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("checking the worktree %s: %w", path, err)
	}
	if !info.IsDir() {
		return &Error{Err: fmt.Errorf("the worktree %s is not a directory (a symlink or a file took its place)", path),
			Advice: "move it away and run the command again: the loop's branch keeps its commits"}
	}
	return nil
}

// samePath reports whether two paths name one file, through symbolic links.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

func orDetached(branch string) string {
	if branch == "" {
		return "a detached HEAD"
	}
	return strings.TrimPrefix(branch, "refs/heads/")
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
