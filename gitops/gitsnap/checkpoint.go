package gitsnap

import (
	"context"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
)

// TakeCheckpoint reads HEAD, snapshots the working tree of the repository containing dir, and
// at once points the refs keep names for it at the checkpoint (see KeepAliveAll), so that a
// gc can prune nothing the checkpoint holds once it is taken.
//
// Between writing the snapshot's objects and that ref update, a concurrent
// `git gc --prune=now` may still prune them: git offers no way to write objects and a ref to
// them in one step. The update then fails on a missing object (or git-write-tree does, on a
// missing blob), and the checkpoint is taken again, up to checkpointAttempts times.
func TakeCheckpoint(ctx context.Context, dir string, keep func(gitops.Checkpoint) []gitops.Ref) (gitops.Checkpoint, error) {
	var err error
	for attempt := 1; attempt <= checkpointAttempts; attempt++ {
		var c gitops.Checkpoint
		if c, err = takeCheckpoint(ctx, dir); err == nil {
			beforeKeep(dir, c)
			if err = gitops.KeepAliveAll(ctx, dir, keep(c)); err == nil {
				return c, nil
			}
		}
		if !gitops.IsPruned(err) {
			return gitops.Checkpoint{}, err
		}
		select { // let a gc's pack-refs release the ref locks it holds
		case <-ctx.Done():
			return gitops.Checkpoint{}, err
		case <-time.After(time.Duration(attempt) * 20 * time.Millisecond):
		}
	}
	return gitops.Checkpoint{}, fmt.Errorf("the objects of the checkpoint went missing %d times while it was taken (is `git gc --prune=now` running in a loop?): %w", checkpointAttempts, err)
}

// beforeKeep runs between a checkpoint's snapshot and the ref update that keeps it: the
// window a concurrent gc can hit, where tests put one.
var beforeKeep = func(dir string, c gitops.Checkpoint) {}

// checkpointAttempts bounds TakeCheckpoint's retries after a concurrent gc.
const checkpointAttempts = 5

func takeCheckpoint(ctx context.Context, dir string) (gitops.Checkpoint, error) {
	head, err := gitops.Head(ctx, dir)
	if err != nil {
		return gitops.Checkpoint{}, err
	}
	tree, err := snapshotAt(ctx, dir, head)
	if err != nil {
		return gitops.Checkpoint{}, err
	}
	return gitops.Checkpoint{Head: head, Tree: tree}, nil
}
