package mergequeue

import (
	"context"
	"fmt"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// followBase brings each work tree that has the base branch checked out from the base's
// old commit to its new one, when nothing is changed there; a tree with changes is left
// as it was, with the command that updates it. It is safe to run again after a crash: a
// tree already at the new commit counts as updated.
func (r repo) followBase(ctx context.Context, entry history.Merge) []Tree {
	list, err := gitops.Worktrees(ctx, r.dir)
	if err != nil {
		return []Tree{{Path: r.main, Problem: err.Error()}}
	}
	var trees []Tree
	for _, wt := range list {
		if wt.Branch != entry.BaseBranch || wt.Bare || wt.Prunable {
			continue
		}
		trees = append(trees, r.follow(ctx, wt.Path, entry.BaseBefore, entry.Result))
	}
	return trees
}

// follow updates one work tree from before to after. The usual case, a clean tree at
// before, costs one comparison; a tree that differs from before may already be at after
// (a crash after the update), which counts as updated.
func (r repo) follow(ctx context.Context, path, before, after string) Tree {
	t := Tree{Path: path}
	changed, err := gitops.ChangedFrom(ctx, path, before)
	if err == nil && changed {
		if moved, err := gitops.ChangedFrom(ctx, path, after); err == nil && !moved {
			t.Updated = true
			return t
		}
	}
	switch {
	case err != nil:
		t.Problem = err.Error()
	case changed:
		t.Problem = "it has changes of its own"
	default:
		return r.move(ctx, path, before, after)
	}
	return t
}

// move brings the files of the work tree path from before to after.
func (r repo) move(ctx context.Context, path, before, after string) Tree {
	if err := gitops.MoveCheckout(ctx, path, before, after); err != nil {
		return Tree{Path: path, Problem: err.Error()}
	}
	return Tree{Path: path, Updated: true}
}

// checkouts are the work trees that have branch checked out, those with changes of their
// own marked with a problem. Asked before the branch moves, while their HEAD is still
// its old commit: one git status each (the list itself is read from git's files).
func (r repo) checkouts(ctx context.Context, branch string) []Tree {
	paths, err := gitops.CheckedOut(ctx, r.dir, r.common, branch)
	if err != nil {
		return []Tree{{Path: r.main, Problem: err.Error()}}
	}
	var trees []Tree
	for _, path := range paths {
		t := Tree{Path: path}
		if changed, err := gitops.TrackedChanges(ctx, path); err != nil {
			t.Problem = err.Error()
		} else if changed {
			t.Problem = "it has changes of its own"
		}
		trees = append(trees, t)
	}
	return trees
}

// UpdateCommand is what a user runs in a work tree left behind to bring its files from
// the base's old commit to the new one, keeping their changes (git refuses where a
// change would be overwritten).
func UpdateCommand(path, before, after string) string {
	return fmt.Sprintf("git -C %s read-tree -m -u %s %s", path, short(before), short(after))
}
