package gitwt

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// CheckedOut lists the work trees that have branch (a full ref name) checked out, in the
// repository whose common git directory is common and one of whose work trees is dir:
// what `git worktree list` says, leaving out a bare main repository and the work trees
// whose directory is gone. It reads the HEAD files where git keeps them, without a
// process, and asks git whenever the layout is anything else (see checkedOutFromFiles).
func CheckedOut(ctx context.Context, dir, common, branch string) ([]string, error) {
	if paths, ok := checkedOutFromFiles(common, branch); ok {
		return paths, nil
	}
	list, err := List(ctx, dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, wt := range list {
		if wt.Branch == branch && !wt.Bare && !wt.Prunable {
			paths = append(paths, wt.Path)
		}
	}
	return paths, nil
}

// checkedOutFromFiles reads what CheckedOut answers from the files as `git worktree
// list` reads them: the main work tree's HEAD in the common directory (named .git, in
// the main tree: see MainPath), each linked one's HEAD and gitdir (the path of its
// .git file) under worktrees/. It reports false for anything it is not sure to read as
// git does: an environment naming a git directory, a common directory not named .git,
// a configuration that is not plain (see PlainConfig), a HEAD that is neither a branch nor
// a commit, a file it cannot read.
func checkedOutFromFiles(common, branch string) ([]string, bool) {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" || filepath.Base(common) != ".git" || !gitstore.PlainConfig(common) {
		return nil, false
	}
	main, err := MainPath(common)
	if err != nil {
		return nil, false
	}
	var paths []string
	on, ok := headOn(filepath.Join(common, "HEAD"), branch)
	if !ok {
		return nil, false
	}
	if on {
		paths = append(paths, main)
	}
	entries, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	for _, e := range entries {
		path, on, ok := linkedOn(filepath.Join(common, "worktrees", e.Name()), branch)
		if !ok {
			return nil, false
		}
		if on {
			paths = append(paths, path)
		}
	}
	return paths, true
}

// linkedOn reads one linked work tree's administrative directory admin: its path, and
// whether it has branch checked out. One whose directory is gone is not on it (git
// lists it as prunable); one git would not list (no gitdir file) neither.
func linkedOn(admin, branch string) (path string, on, ok bool) {
	data, err := gitstore.ReadSmall(filepath.Join(admin, "gitdir"), gitstore.MaxLineFile)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && strings.TrimSpace(string(data)) == "":
		return "", false, true
	case err != nil:
		return "", false, false
	}
	gitFile := strings.TrimRight(string(data), " \t\r\n")
	if !filepath.IsAbs(gitFile) {
		return "", false, false
	}
	path = strings.TrimSuffix(gitFile, "/.git")
	if _, err := os.Stat(gitFile); err != nil {
		// gone: git calls it prunable, unless it is locked (a drive not mounted, say)
		_, lockErr := os.Lstat(filepath.Join(admin, "locked"))
		return "", false, errors.Is(err, fs.ErrNotExist) && errors.Is(lockErr, fs.ErrNotExist)
	}
	on, ok = headOn(filepath.Join(admin, "HEAD"), branch)
	return path, on, ok
}

// headOn reads the HEAD file at path: whether it names branch; false for a detached
// HEAD (a commit's hash); not ok for anything else.
func headOn(path, branch string) (on, ok bool) {
	data, err := gitstore.ReadSmall(path, gitstore.MaxLineFile)
	if err != nil {
		return false, false
	}
	head := strings.TrimRight(string(data), "\r\n")
	if ref, isRef := strings.CutPrefix(head, "ref: "); isRef {
		return ref == branch, strings.HasPrefix(ref, "refs/")
	}
	return false, gitstore.IsHash(head)
}
