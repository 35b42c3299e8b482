package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// RootCommits lists the commits without parents that HEAD reaches, sorted: what identifies
// a project's history in every clone of it. None on an unborn branch.
func RootCommits(ctx context.Context, dir string) ([]string, error) {
	head, err := Head(ctx, dir)
	if err != nil || head == "" {
		return nil, err
	}
	out, err := Git(ctx, dir, "rev-list", "--max-parents=0", head, "--")
	if err != nil {
		return nil, fmt.Errorf("listing the root commits: %w", err)
	}
	roots := strings.Fields(out)
	slices.Sort(roots)
	return roots, nil
}

// CommitParts reads the first parent and the tree of commit: what a commit that wraps a
// checkpoint's tree says of it.
func CommitParts(ctx context.Context, dir, commit string) (parent, tree string, err error) {
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+"^{tree}")
	if err != nil {
		return "", "", fmt.Errorf("reading commit %s: %w", commit, err)
	}
	tree = out
	if out, err = Git(ctx, dir, "rev-list", "--parents", "--max-count=1", commit, "--"); err != nil {
		return "", "", fmt.Errorf("reading commit %s: %w", commit, err)
	}
	if fields := strings.Fields(out); len(fields) > 1 {
		parent = fields[1]
	}
	return parent, tree, nil
}

// FirstParentChain lists the commits from (excluded) to to, oldest first, along first
// parents, when from is an ancestor of to ("" for an unborn branch: all of to's); ok is
// false when it is not (the history was rewritten, not added to).
func FirstParentChain(ctx context.Context, dir, from, to string) (commits []string, ok bool, err error) {
	if to == "" || from == to {
		return nil, from == to, nil
	}
	args := []string{"rev-list", "--reverse", "--first-parent", to}
	if from != "" {
		if _, err := Git(ctx, dir, "merge-base", "--is-ancestor", from, to); err != nil {
			var gitErr *Error
			if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("comparing %s with %s: %w", from, to, err)
		}
		args = append(args, "^"+from)
	}
	out, err := Git(ctx, dir, append(args, "--")...)
	if err != nil {
		return nil, false, fmt.Errorf("listing the commits from %s to %s: %w", from, to, err)
	}
	return strings.Fields(out), true, nil
}

// CopyCommit writes a commit of tree on parent ("" for none) with original's message,
// author and committer (names, emails and dates): original again, if its tree and parent
// are the same.
func CopyCommit(ctx context.Context, dir, original, tree, parent string) (string, error) {
	out, err := Git(ctx, dir, "log", "-1", "--no-show-signature", "--format=%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B", "--date=raw", original, "--")
	if err != nil {
		return "", fmt.Errorf("reading commit %s: %w", original, err)
	}
	f := strings.SplitN(out, "\x00", 7)
	if len(f) != 7 {
		return "", fmt.Errorf("reading commit %s: unexpected %q", original, out)
	}
	env := []string{"GIT_AUTHOR_NAME=" + f[0], "GIT_AUTHOR_EMAIL=" + f[1], "GIT_AUTHOR_DATE=" + f[2],
		"GIT_COMMITTER_NAME=" + f[3], "GIT_COMMITTER_EMAIL=" + f[4], "GIT_COMMITTER_DATE=" + f[5]}
	args := []string{"commit-tree", tree, "-F", "-"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	var commit strings.Builder
	if err := GitTo(ctx, dir, env, strings.NewReader(f[6]), &commit, args...); err != nil {
		return "", fmt.Errorf("copying commit %s: %w", original, err)
	}
	return strings.TrimSpace(commit.String()), nil
}

// TreeOf is the tree of commit head, read with go-git or else with the git CLI.
func TreeOf(ctx context.Context, dir, head string) (string, error) {
	if tree, ok := treeGoGit(dir, head); ok {
		return tree, nil
	}
	tree, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", head+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("reading the tree of %s: %w", head, err)
	}
	return tree, nil
}

func treeGoGit(dir, head string) (string, bool) {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" || len(head) != 40 {
		return "", false
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return "", false
	}
	commit, err := repo.CommitObject(plumbing.NewHash(head))
	if err != nil {
		return "", false
	}
	return commit.TreeHash.String(), true
}
