package gitops

import (
	"context"
	"fmt"
	"strings"
)

// Unkept lists what the work tree at dir holds that no commit keeps: changed, staged
// and untracked files (`git status`, every untracked file), then ignored files and
// directories (git lists a wholly ignored directory as one entry, such as node_modules/).
// Removing the work tree would lose them. Paths ours reports true for are left out:
// the caller's own files.
func Unkept(ctx context.Context, dir string, ours func(path string) bool) ([]string, error) {
	out, err := Git(ctx, dir, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=none")
	if err != nil {
		return nil, asNotRepo(dir, fmt.Errorf("reading the work tree's status: %w", err))
	}
	var list []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		if len(fields[i]) < 4 {
			continue
		}
		if c := fields[i][0]; c == 'R' || c == 'C' {
			i++ // the source path of a rename or copy follows
		}
		list = append(list, fields[i][3:])
	}
	ignored, err := ignoredFiles(ctx, dir, "--directory", "--no-empty-directory")
	if err != nil {
		return nil, err
	}
	list = append(list, ignored...)
	kept := list[:0]
	for _, p := range list {
		if !ours(p) {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// DeleteWorktree removes the linked work tree at path with all its files, changed and
// untracked ones included (the caller has checked what it would lose), and git's record
// of it. A locked work tree is refused.
func DeleteWorktree(ctx context.Context, dir, path string) error {
	if _, err := Git(ctx, dir, "worktree", "remove", "--force", "--end-of-options", path); err != nil {
		return fmt.Errorf("removing the worktree %s: %w", path, err)
	}
	return nil
}

// DeleteBranch deletes branch (a full ref under refs/heads/) if it still points to old:
// a branch that moved meanwhile is left alone and reported.
func DeleteBranch(ctx context.Context, dir, branch, old string) error {
	if !strings.HasPrefix(branch, "refs/heads/") || old == "" {
		return fmt.Errorf("deleting branch %q at %q: want a full branch name and its commit", branch, old)
	}
	if _, err := Git(ctx, dir, "update-ref", "--no-deref", "-d", branch, old); err != nil {
		return fmt.Errorf("deleting the branch %s: %w", strings.TrimPrefix(branch, "refs/heads/"), err)
	}
	return nil
}
