package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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

// Worktrees lists the work trees of dir's repository, the main one first.
//
// `git worktree add` writes a new worktree's files under worktrees/ one after the other,
// not atomically, and `git worktree list` dies when it reads one half written ("fatal:
// failed to read .git/worktrees/NAME/commondir: Success"): the list is asked again a few
// times before that counts as an error, since the loops of a best-of add their worktrees
// at the same moment as others list them.
func Worktrees(ctx context.Context, dir string) ([]Worktree, error) {
	var err error
	for try := 1; ; try++ {
		var out string
		if out, err = Git(ctx, dir, "worktree", "list", "--porcelain", "-z"); err == nil {
			return parseWorktrees(out), nil
		}
		if try == worktreeListTries || !halfAdded(err) || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(try) * 20 * time.Millisecond)
	}
	return nil, asNotRepo(dir, fmt.Errorf("listing the worktrees: %w", err))
}

// worktreeListTries bounds the lists asked while a worktree is being added (about 1 s).
const worktreeListTries = 10

// halfAdded reports whether git failed on a worktree's administrative file, as it does
// on one that `git worktree add` is still writing.
func halfAdded(err error) bool {
	var gitErr *Error
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

// AddBranchWorktree creates a linked work tree at path (which must not exist) with branch
// checked out. With a start commit it creates the branch there first, and fails if the
// branch exists; without one the branch must exist. No hook runs (see noHooks), so a
// post-checkout hook of the repository cannot act on the new tree.
func AddBranchWorktree(ctx context.Context, dir, path, branch, start string) error {
	args := []string{"worktree", "add", "--quiet", path, branch}
	if start != "" {
		args = []string{"worktree", "add", "--quiet", "--no-track", "-b", branch, path, start}
	}
	if _, err := Git(ctx, dir, args...); err != nil {
		return fmt.Errorf("adding the worktree %s on %s: %w", path, branch, err)
	}
	return nil
}

// PruneWorktrees forgets the work trees whose directories are gone (`git worktree prune`);
// their branches stay.
func PruneWorktrees(ctx context.Context, dir string) error {
	if _, err := Git(ctx, dir, "worktree", "prune"); err != nil {
		return fmt.Errorf("pruning the worktrees whose directories are gone: %w", err)
	}
	return nil
}

// TopCommonDir is CommonDir for top, the top of a work tree, read from the files as git
// reads them (a .git directory, or a .git file naming the work tree's git directory,
// whose commondir file names the shared one) without a process; it asks git whenever the
// layout is anything else, or the environment names a git directory.
func TopCommonDir(ctx context.Context, top string) (string, error) {
	if common, ok := commonDirFromFiles(top); ok {
		return common, nil
	}
	return CommonDir(ctx, top)
}

func commonDirFromFiles(top string) (string, bool) {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" || !filepath.IsAbs(top) {
		return "", false
	}
	gitDir := filepath.Join(top, ".git")
	info, err := os.Lstat(gitDir)
	switch {
	case err != nil:
		return "", false
	case info.Mode().IsRegular():
		data, err := readSmall(gitDir, maxLineFile)
		line, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
		if err != nil || !ok || line == "" || strings.ContainsAny(line, "\n\x00") {
			return "", false
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(top, line)
		}
		gitDir = filepath.Clean(line)
	case !info.IsDir():
		return "", false
	}
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		return "", false // not a git directory git would take
	}
	data, err := readSmall(filepath.Join(gitDir, "commondir"), maxLineFile)
	if errors.Is(err, os.ErrNotExist) {
		return gitDir, true
	}
	common := strings.TrimRight(string(data), "\r\n")
	if err != nil || common == "" || strings.ContainsAny(common, "\n\x00") {
		return "", false
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return filepath.Clean(common), true
}

// CommonDir is the absolute path of the git directory that dir's work tree shares with
// the repository's other work trees ($GIT_COMMON_DIR): the place for files about all of
// them.
func CommonDir(ctx context.Context, dir string) (string, error) {
	out, err := Git(ctx, dir, "rev-parse", "--git-common-dir")
	if err != nil {
		return "", asNotRepo(dir, fmt.Errorf("finding the common git directory: %w", err))
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(dir, out)
	}
	return filepath.Clean(out), nil
}

// ResolveCommit names the commit rev stands for, and the branch when rev names a local
// branch (HEAD on a branch included): the full ref, else "". It reports false when rev
// names no commit. rev is taken as a revision even when it starts with a dash.
func ResolveCommit(ctx context.Context, dir, rev string) (commit, branch string, ok bool, err error) {
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	var gitErr *Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, asNotRepo(dir, fmt.Errorf("resolving %s: %w", rev, err))
	}
	if strings.HasPrefix(rev, "-") {
		return out, "", true, nil // no branch name starts with a dash, and rev-parse would take it for an option
	}
	full, err := Git(ctx, dir, "rev-parse", "--symbolic-full-name", rev)
	if err == nil && strings.HasPrefix(full, "refs/heads/") && !strings.Contains(full, "\n") {
		branch = full
	}
	return out, branch, true, nil
}

// CountAhead is how many commits tip has that base has not (`git rev-list --count
// base..tip`); with no base (an unborn branch), all of tip's.
func CountAhead(ctx context.Context, dir, base, tip string) (int, error) {
	revs := base + ".." + tip
	if base == "" {
		revs = tip
	}
	out, err := Git(ctx, dir, "rev-list", "--count", "--end-of-options", revs, "--")
	if err != nil {
		return 0, fmt.Errorf("counting the commits of %s not in %s: %w", tip, base, err)
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		return 0, fmt.Errorf("counting the commits of %s not in %s: unexpected answer %q", tip, base, out)
	}
	return n, nil
}

// MainWorktree is the path `git worktree list` gives the main work tree of the
// repository whose common git directory is commonDir, found as git finds it — the real
// path of that directory without its "/.git" (a bare repository: the directory itself) —
// so that a caller that has the common directory spares a process.
func MainWorktree(commonDir string) (string, error) {
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
