package gitwt

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/lazyregexp"
)

// worktreeIDs caches ID: which work tree a directory belongs to does not change
// while git-ralph runs, and the answer costs a process.
var worktreeIDs sync.Map

// ID names the linked work tree that contains dir (see git-worktree(1)) in a form
// fit for one component of a ref name, and is "" in the main work tree (or a repository
// with no linked work trees). The name is that of the work tree's directory under
// $GIT_COMMON_DIR/worktrees/, which stays the same when the work tree is moved.
func ID(ctx context.Context, dir string) (string, error) {
	key := dir + "\x00" + os.Getenv("GIT_DIR") + "\x00" + os.Getenv("GIT_COMMON_DIR")
	if id, ok := worktreeIDs.Load(key); ok {
		return id.(string), nil
	}
	out, err := gitops.Git(ctx, dir, "rev-parse", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return "", gitops.AsNotRepo(dir, fmt.Errorf("finding the work tree's git directory: %w", err))
	}
	gitDir, common, ok := strings.Cut(out, "\n")
	if !ok {
		return "", fmt.Errorf("finding the work tree's git directory: unexpected answer %q", out)
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	id := ""
	if !sameDir(gitDir, common) {
		id = refSafe(filepath.Base(gitDir))
	}
	worktreeIDs.Store(key, id)
	return id, nil
}

// sameDir reports whether two paths name one directory, through symbolic links.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

var plainRefComponent = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)

// refSafe returns name when it is a plain ref component, and otherwise "x." and its bytes in
// hex: git names work trees after their directories, which may hold anything, and two
// different names must never give the same ref (a plain name has no dot).
func refSafe(name string) string {
	if plainRefComponent.MatchString(name) {
		return name
	}
	return "x." + hex.EncodeToString([]byte(name))
}
