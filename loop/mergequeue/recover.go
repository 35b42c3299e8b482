package mergequeue

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/history"
)

// Recover finishes or undoes the merges whose command died (kill -9, a crash, a power
// cut) when no merge runs now, and brings along the work trees with a base branch checked
// out whose index a killed merge left behind the branch (their changes kept); it does
// nothing while another merge holds the queue. It returns a note for each merge or tree
// it cleaned up. The commands that look at the loops call it first: runs, status,
// doctor and merge (which recovers under its own turn in the queue).
func Recover(ctx context.Context, dir string) ([]string, error) {
	r, err := find(ctx, dir)
	if err != nil {
		return nil, err
	}
	if !r.anyMerge() {
		return nil, nil // no merge ever: nothing to look at, and no lock file made for it
	}
	queue, err := history.LockMergeQueue(ctx, r.common, false)
	if err != nil {
		return nil, nil // a merge runs, and it recovers before its own; or nothing to lock
	}
	defer queue.Release()
	return recoverLocked(ctx, r, ""), nil
}

// recoverLocked cleans up, holding the queue's lock, every queued or merging entry whose
// command is gone (its lock is free), but the entry of the loop self; then brings along
// the work trees a merged entry left behind (see repairLagging).
func recoverLocked(ctx context.Context, r repo, self string) []string {
	entries, _, err := history.Merges(r.common)
	if err != nil {
		return nil
	}
	notes := r.removeOrphanScratches(ctx, self)
	notes = append(notes, r.recoverEntries(ctx, entries, self)...)
	return append(notes, r.repairLagging(ctx, entries)...)
}

// recoverEntries finishes or undoes each queued or merging entry of a dead command.
func (r repo) recoverEntries(ctx context.Context, entries []history.Merge, self string) []string {
	var notes []string
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
			return r.finishLanding(ctx, e)
		}
	}
	r.drop(e.Name, nil)
	return fmt.Sprintf("the interrupted merge of %s was undone: %s was left at %s", e.Name, branchName(e.BaseBranch), short(e.BaseBefore))
}

// finishLanding finishes a killed merge whose base is at its result: the trees that have
// the base checked out catch up, and the merge is recorded; or, when one cannot (a change
// of the user's in a path the merge writes), the base goes back to its old commit.
func (r repo) finishLanding(ctx context.Context, e history.Merge) string {
	base := branchName(e.BaseBranch)
	trees, moved, refused := r.catchUp(ctx, e)
	if refused && r.undoLanding(ctx, e, moved) {
		r.drop(e.Name, nil)
		return fmt.Sprintf("the interrupted merge of %s was undone: %s; %s was put back at %s; commit or put aside those changes and merge again",
			e.Name, treeProblems(trees), base, short(e.BaseBefore))
	}
	r.finish(e, trees)
	note := fmt.Sprintf("the interrupted merge of %s was finished: %s is at %s", e.Name, base, short(e.Result))
	for _, path := range moved {
		note += fmt.Sprintf("; the files of %s followed, its changes kept", path)
	}
	if refused { // the base moved on meanwhile, or a tree would not go back
		note += "; " + treeProblems(trees) + "; " + updateHint(trees, e)
	}
	return note
}

// treeProblems says which trees could not follow, and why.
func treeProblems(trees []Checkout) string {
	var parts []string
	for _, t := range trees {
		if t.Problem != "" {
			parts = append(parts, fmt.Sprintf("the work tree %s cannot follow (%s)", t.Path, t.Problem))
		}
	}
	return strings.Join(parts, "; ")
}

// updateHint is the command that brings each tree left behind to the merge.
func updateHint(trees []Checkout, e history.Merge) string {
	var parts []string
	for _, t := range trees {
		if t.Problem != "" {
			parts = append(parts, UpdateCommand(t.Path, e.BaseBefore, e.Result))
		}
	}
	return "once your changes are committed or put aside, update its files, keeping your changes: " + strings.Join(parts, "; ")
}

// repairLagging brings along the work trees left behind by a merge recorded as merged:
// the base branch still at its result, and the tree's index holding none of it (a
// command killed between moving the base and the tree, by a version that recorded the
// merge before its trees followed). Their changes are kept; a tree where git refuses is
// named with the command that updates it, each time, until it is. A merge whose record
// says its trees followed is left alone: a tree at the old version is then the user's
// doing (a revert staged), not a kill's.
func (r repo) repairLagging(ctx context.Context, entries []history.Merge) []string {
	var notes []string
	for _, e := range entries {
		if e.State != history.MergeMerged || e.TreesFollowed || e.Result == "" || e.Result == e.BaseBefore || e.BaseBefore == "" {
			continue
		}
		if refs, err := gitops.ResolveRefs(ctx, r.dir, e.BaseBranch); err != nil || refs[e.BaseBranch] != e.Result {
			continue
		}
		paths, err := gitwt.CheckedOut(ctx, r.dir, r.common, e.BaseBranch)
		if err != nil {
			continue
		}
		followed := true
		for _, path := range paths {
			note, ok := r.repairTree(ctx, path, e)
			if note != "" {
				notes = append(notes, note)
			}
			followed = followed && ok
		}
		if followed {
			r.markFollowed(e)
		}
	}
	return notes
}

// markFollowed records that every tree of the merged e follows it now, so that no later
// look takes a revert the user stages there for a tree left behind: only while no
// command owns the loop's record, and only if the record is still e.
func (r repo) markFollowed(e history.Merge) {
	own, err := history.HoldMerge(r.common, e.Name)
	if err != nil {
		return
	}
	defer own.Release()
	now, found, err := history.LoadMerge(r.common, e.Name)
	if err != nil || !found || now.State != e.State || now.Result != e.Result {
		return
	}
	now.TreesFollowed = true
	r.save(now)
}

// repairTree brings one tree that lags behind the merge e to it, and says so; ok reports
// whether the tree follows the merge now.
func (r repo) repairTree(ctx context.Context, path string, e history.Merge) (note string, ok bool) {
	l, err := lagOf(ctx, path, e.BaseBefore, e.Result)
	if err != nil {
		return "", false
	}
	if !l.lagging() {
		return "", true
	}
	base := branchName(e.BaseBranch)
	if err := moveAfterKill(ctx, path, e.BaseBefore, e.Result); err != nil {
		why, _ := problem(err)
		return fmt.Sprintf("the work tree %s has %s checked out, but its index and files are still those of %s, before the merge of %s: git refuses to bring them along (%s); committed as they are, they would undo the merge; once your changes are committed or put aside, update them: %s",
			path, base, short(e.BaseBefore), e.Name, why, UpdateCommand(path, e.BaseBefore, e.Result)), false
	}
	return fmt.Sprintf("the files of %s had not followed the merge of %s into %s: brought from %s to %s, your changes kept",
		path, e.Name, base, short(e.BaseBefore), short(e.Result)), true
}

// removeOrphanScratches removes the scratch worktrees whose merge has no live command: a
// kill between two steps can leave one behind whatever its entry says.
func (r repo) removeOrphanScratches(ctx context.Context, self string) []string {
	if found, _ := filepath.Glob(filepath.Join(r.scratchDir(), ".merge-*")); len(found) == 0 {
		return nil // the usual case, without asking git (a directory deleted by hand: see checkOut)
	}
	list, err := gitwt.List(ctx, r.dir)
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

// anyMerge reports whether the repository has a merge record or a scratch worktree.
func (r repo) anyMerge() bool {
	if entries, _, err := history.Merges(r.common); err != nil || len(entries) > 0 {
		return true
	}
	found, _ := filepath.Glob(filepath.Join(r.scratchDir(), ".merge-*"))
	return len(found) > 0
}

func samePath(a, b string) bool { return filepath.Clean(a) == filepath.Clean(b) }
