package gitops

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// RemoveScratchWorktree removes a linked worktree that git-ralph added for its own use
// (a merge's scratch worktree), whatever state its files are in, as `git worktree remove
// --force --force` does and in the same order — its files first, then its administrative
// directory under common/worktrees — but without starting git: a git process costs more
// than the removal of a few files, and it ran beside the processes that land a merge.
//
// Only a worktree laid out as `git worktree add` leaves it is removed so: path/.git a
// file naming a directory directly under common/worktrees, whose gitdir file names
// path/.git back. Anything else (a command run in the worktree may have rewritten its
// .git file to name any directory) is left to git, through RemoveWorktree.
func RemoveScratchWorktree(ctx context.Context, dir, common, path string) error {
	admin, ok := scratchAdminDir(common, path)
	if !ok {
		return RemoveWorktree(ctx, dir, path)
	}
	if err := os.RemoveAll(path); err != nil {
		return RemoveWorktree(ctx, dir, path)
	}
	if err := os.RemoveAll(admin); err != nil {
		_, err = Git(ctx, dir, "worktree", "prune") // forgets a worktree whose directory is gone
		return err
	}
	_ = os.Remove(filepath.Dir(admin)) // common/worktrees, when it was the last one, as git does
	return nil
}

// scratchAdminDir is the administrative directory of the linked worktree at path when
// its files say so both ways, as `git worktree add` writes them (absolute paths).
func scratchAdminDir(common, path string) (string, bool) {
	if !filepath.IsAbs(path) || !filepath.IsAbs(common) {
		return "", false
	}
	dotGit := filepath.Join(path, ".git")
	if info, err := os.Lstat(dotGit); err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	admin, ok := pathLine(dotGit, "gitdir: ")
	if !ok || filepath.Dir(admin) != filepath.Join(filepath.Clean(common), "worktrees") {
		return "", false
	}
	if info, err := os.Lstat(admin); err != nil || !info.IsDir() {
		return "", false
	}
	back, ok := pathLine(filepath.Join(admin, "gitdir"), "")
	if !ok || back != dotGit {
		return "", false
	}
	return admin, true
}

// pathLine reads the absolute path a one-line git file holds after prefix, cleaned.
func pathLine(file, prefix string) (string, bool) {
	data, err := readSmall(file, maxLineFile)
	line, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), prefix)
	if err != nil || !ok || !filepath.IsAbs(line) || strings.ContainsAny(line, "\n\x00") {
		return "", false
	}
	return filepath.Clean(line), true
}
