package mergequeue

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// Recover finishes or undoes the merges whose command died (kill -9, a crash, a power
// cut) when no merge runs now; it does nothing while another holds the queue. It returns
// a note for each merge it cleaned up.
func Recover(ctx context.Context, dir string) ([]string, error) {
	r, err := find(ctx, dir)
	if err != nil {
		return nil, err
	}
	queue, err := history.LockMergeQueue(ctx, r.common, false)
	if err != nil {
		return nil, nil // a merge runs, and it recovers before its own; or nothing to lock
	}
	defer queue.Release()
	return recoverLocked(ctx, r, ""), nil
}

// recoverLocked cleans up, holding the queue's lock, every queued or merging entry whose
// command is gone (its lock is free), but the entry of the loop self.
func recoverLocked(ctx context.Context, r repo, self string) []string {
	entries, _, err := history.Merges(r.common)
	if err != nil {
		return nil
	}
	notes := r.removeOrphanScratches(ctx, self)
	for _, e := range entries {
		if e.Name == self || (e.State != history.MergeQueued && e.State != history.MergeMerging) {
			continue
		}
		own, err := history.HoldMerge(r.common, e.Name)
		if err != nil {
			continue // its command lives: it waits for its turn
		}
		if note := r.recoverOne(ctx, e); note != "" {
			notes = append(notes, note)
		}
		own.Release()
	}
	return notes
}

// recoverOne finishes or undoes the merge e of a dead command. Until the base moved
// nothing of it counts: its scratch worktree and entry go. Once the validated result is
// being landed, the landing is finished (the swap is a compare-and-swap, so it lands only
// on the commit the result was validated on), and the checked-out trees follow.
func (r repo) recoverOne(ctx context.Context, e history.Merge) string {
	if e.Validator > 0 {
		killGroup(e.Validator, e.Name) // its validate command, if it still runs
	}
	r.removeScratch(e.Scratch)
	if e.State == history.MergeQueued {
		r.drop(e.Name, nil)
		return fmt.Sprintf("the queued merge of %s was dropped: the command that queued it is gone", e.Name)
	}
	switch e.Phase {
	case history.PhaseLanding, history.PhaseUpdating:
		now, err := gitops.ResolveRef(ctx, r.dir, e.BaseBranch)
		if err == nil && now == e.BaseBefore {
			err = gitops.SwapRef(ctx, r.dir, e.BaseBranch, e.Result, e.BaseBefore, "git ralph merge "+e.Name+" (finished after an interruption)")
			now = e.Result
		}
		if err == nil && now == e.Result {
			r.finish(e, r.followBase(ctx, e))
			return fmt.Sprintf("the interrupted merge of %s was finished: %s is at %s", e.Name, branchName(e.BaseBranch), short(e.Result))
		}
	}
	r.drop(e.Name, nil)
	return fmt.Sprintf("the interrupted merge of %s was undone: %s was left at %s", e.Name, branchName(e.BaseBranch), short(e.BaseBefore))
}

// removeOrphanScratches removes the scratch worktrees whose merge has no live command: a
// kill between two steps can leave one behind whatever its entry says.
func (r repo) removeOrphanScratches(ctx context.Context, self string) []string {
	if found, _ := filepath.Glob(filepath.Join(r.scratchDir(), ".merge-*")); len(found) == 0 {
		return nil // the usual case, without asking git (a directory deleted by hand: see checkOut)
	}
	list, err := gitops.Worktrees(ctx, r.dir)
	if err != nil {
		return nil
	}
	var notes []string
	for _, wt := range list {
		name, ok := strings.CutPrefix(filepath.Base(wt.Path), ".merge-")
		if !ok || name == self || !samePath(wt.Path, r.scratchPath(name)) || history.MergeHeld(r.common, name) {
			continue
		}
		r.removeScratch(wt.Path)
		notes = append(notes, fmt.Sprintf("removed the scratch worktree an interrupted merge of %s left", name))
	}
	return notes
}

func samePath(a, b string) bool { return filepath.Clean(a) == filepath.Clean(b) }
