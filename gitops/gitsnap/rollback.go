package gitsnap

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-ralph/git-ralph/gitops"
)

// IndexTree writes what the index stages as a tree and returns it. It is "" when the
// index has unmerged entries, which no tree can hold. write-tree runs on a copy of the
// index: on the index itself it would rewrite the file (its cache of trees), and fail
// while another git process holds index.lock.
func IndexTree(ctx context.Context, dir string) (string, error) {
	unmerged, err := gitops.Git(ctx, dir, "ls-files", "-z", "--unmerged")
	if err != nil || unmerged != "" {
		return "", err
	}
	var tree string
	err = withScratchIndex(ctx, dir, func(env []string) error {
		var err error
		tree, err = gitops.GitEnv(ctx, dir, env, "write-tree")
		return err
	})
	if err != nil {
		return "", fmt.Errorf("reading what the index stages: %w", err)
	}
	return tree, nil
}

// StageTree makes the index stage tree, leaving the work tree as it is, and refreshes the
// index's file data so that only real differences show as changes.
func StageTree(ctx context.Context, dir, tree string) error {
	if _, err := gitops.Git(ctx, dir, "read-tree", tree); err != nil {
		return fmt.Errorf("staging %s: %w", tree, err)
	}
	_, err := gitops.Git(ctx, dir, "update-index", "-q", "--refresh")
	var gitErr *gitops.Error
	if err != nil && !(errors.As(err, &gitErr) && gitErr.ExitCode == 1) { // 1: files differ, as they may
		return err
	}
	return nil
}

// StagedTree is IndexTree when the index stages something else than head's tree (the
// empty tree when head is ""), and "" when it stages nothing new.
func StagedTree(ctx context.Context, dir, head string) (string, error) {
	index, err := IndexTree(ctx, dir)
	if err != nil || index == "" {
		return "", err
	}
	headTree := emptyTree
	if head != "" {
		if headTree, err = gitops.ResolveRef(ctx, dir, head+"^{tree}"); err != nil {
			return "", err
		}
	}
	if index == headTree {
		return "", nil
	}
	return index, nil
}
