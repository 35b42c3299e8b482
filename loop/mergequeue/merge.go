package mergequeue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// merge builds, validates and lands the loop's branch on its base, holding the queue's
// lock. When the base moves between the build and the swap, the merge is built and
// validated again on the new base, a few times at most.
func (r repo) merge(ctx context.Context, req Request, loop history.WorktreeLoop, entry history.Merge) (Outcome, error) {
	for try := 1; ; try++ {
		out, err := r.mergeOnce(ctx, req, loop, entry)
		if !errors.Is(err, gitops.ErrRefMoved) {
			return out, err
		}
		if try == attempts {
			return Outcome{}, r.drop(req.Name, &Error{Err: fmt.Errorf("the base branch %s moved during each of %d tries to merge %s: %w", branchName(loop.BaseBranch), attempts, req.Name, err),
				Advice: "something else keeps moving that branch; run the merge again when it is still"})
		}
		say(req, fmt.Sprintf("the base branch %s moved meanwhile: building and validating the merge again on its new commit", branchName(loop.BaseBranch)))
	}
}

// mergeOnce is one try: the journal (the loop's merge file) is saved before each step,
// so that a command killed at any moment leaves the next one enough to finish or undo it.
func (r repo) mergeOnce(ctx context.Context, req Request, loop history.WorktreeLoop, entry history.Merge) (Outcome, error) {
	before, tip, err := r.tips(ctx, loop)
	if err != nil {
		return Outcome{}, r.drop(req.Name, err)
	}
	entry.State, entry.BaseBefore, entry.Tip = history.MergeMerging, before, tip
	merged, err := r.mergeTree(ctx, entry)
	if err != nil {
		return Outcome{}, r.drop(req.Name, err)
	}
	done, ff, err := r.relation(ctx, entry, merged)
	if err != nil || done {
		return r.alreadyMerged(entry, err)
	}
	entry.Phase, entry.Scratch = history.PhaseBuilding, r.scratchPath(req.Name)
	if err := r.save(entry); err != nil {
		return Outcome{}, err
	}
	say(req, fmt.Sprintf("merging %s (%s) into %s (%s) in a scratch worktree", branchName(loop.Branch), short(tip), branchName(loop.BaseBranch), short(before)))
	built, err := r.build(ctx, entry, req.Name, ff, merged)
	if err != nil {
		return Outcome{}, r.drop(req.Name, err)
	}
	if len(built.Conflicts) > 0 {
		return r.review(entry, "conflict", built.Conflicts, "")
	}
	// recorded once the validate command runs, with its process group: until then the
	// building record stands for it (a kill drops either)
	entry.Phase, entry.Result = history.PhaseValidating, built.Commit
	if passed, output, err := r.validate(ctx, req, &entry); err != nil || !passed {
		if err != nil {
			return Outcome{}, r.drop(req.Name, err)
		}
		return r.review(entry, "validation failed", nil, output)
	}
	// the scratch worktree has served: it goes while the base moves, and is gone before
	// land returns (a try again reuses its place; the last record comes after it)
	scratchGone := r.removeScratchMeanwhile(entry.Scratch)
	out, err := r.land(ctx, entry, scratchGone)
	out.FastForward = built.FastForward
	return out, err
}

// tips reads the commits of the loop's base branch and of its own branch, which must
// both exist.
func (r repo) tips(ctx context.Context, loop history.WorktreeLoop) (before, tip string, err error) {
	refs, err := gitops.ResolveRefs(ctx, r.dir, loop.BaseBranch, loop.Branch)
	if err != nil {
		return "", "", err
	}
	before, tip = refs[loop.BaseBranch], refs[loop.Branch]
	switch {
	case before == "":
		return "", "", &Error{Err: fmt.Errorf("the base branch %s of the loop %s does not exist", branchName(loop.BaseBranch), loop.Name),
			Advice: "create it again, or merge the loop's branch yourself"}
	case tip == "":
		return "", "", &Error{Err: fmt.Errorf("the loop %s has no branch %s", loop.Name, branchName(loop.Branch)),
			Advice: "'git ralph runs' shows the loops and their branches"}
	}
	return before, tip, nil
}

// mergeTree merges the tip into the base without a work tree, for a merge commit or a
// squash: it only writes objects nothing refers to yet, so it may come before the
// journal's building record. Zero for a rebase, or a git too old for it.
func (r repo) mergeTree(ctx context.Context, entry history.Merge) (gitops.Merged, error) {
	if entry.How == gitops.HowRebase {
		return gitops.Merged{}, nil
	}
	merged, err := gitops.MergeTree(ctx, r.dir, entry.BaseBefore, entry.Tip)
	if errors.Is(err, gitops.ErrNoMergeTree) {
		return gitops.Merged{}, nil
	}
	return merged, err
}

// relation says whether the base already holds the tip, or is its ancestor. A conflict,
// or a merged tree unlike those of both, answers without asking git: neither holds the
// other.
func (r repo) relation(ctx context.Context, entry history.Merge, merged gitops.Merged) (done, ff bool, err error) {
	if len(merged.Conflicts) > 0 {
		return false, false, nil
	}
	if merged.Tree != "" {
		maybe, err := gitops.MayBeRelated(ctx, r.dir, merged.Tree, entry.BaseBefore, entry.Tip)
		if err != nil || !maybe {
			return false, false, err
		}
	}
	return gitops.Relation(ctx, r.dir, entry.BaseBefore, entry.Tip)
}

// build builds the merge and checks it out in the scratch worktree for the validation.
// A merge commit or a squash was merged without a work tree (mergeTree: a conflict costs
// no checkout, and the result is checked out once); a rebase, or a git too old for that,
// is built in the scratch worktree itself.
func (r repo) build(ctx context.Context, entry history.Merge, name string, ff bool, merged gitops.Merged) (gitops.Built, error) {
	if exists(entry.Scratch) {
		r.removeScratch(entry.Scratch) // a leftover of a crash the recovery could not remove
	}
	if ff && entry.How != gitops.HowSquash { // the result is the loop's own commit
		return gitops.Built{Commit: entry.Tip, FastForward: true}, r.checkOut(ctx, entry.Scratch, entry.Tip)
	}
	msg := fmt.Sprintf("Merge ralph/%s into %s (git ralph merge)", name, branchName(entry.BaseBranch))
	if entry.How == gitops.HowSquash {
		msg = fmt.Sprintf("Squashed ralph/%s into %s (git ralph merge)", name, branchName(entry.BaseBranch))
	}
	switch {
	case len(merged.Conflicts) > 0:
		return gitops.Built{Conflicts: merged.Conflicts}, nil
	case merged.Tree != "":
		built, err := gitops.CommitMerge(ctx, r.dir, merged.Tree, entry.BaseBefore, entry.Tip, entry.How, msg)
		if err != nil {
			return built, err
		}
		return built, r.checkOut(ctx, entry.Scratch, built.Commit)
	}
	if err := r.checkOut(ctx, entry.Scratch, entry.BaseBefore); err != nil {
		return gitops.Built{}, err
	}
	return gitops.BuildMerge(ctx, entry.Scratch, entry.BaseBefore, entry.Tip, entry.How, msg, ff)
}

// checkOut makes the scratch worktree at commit. A scratch directory someone deleted by
// hand is still in git's list, which refuses the place: forgotten, then tried again.
func (r repo) checkOut(ctx context.Context, path, commit string) error {
	err := gitops.AddWorktree(ctx, r.dir, path, commit)
	if err == nil {
		return nil
	}
	if pruneErr := gitops.PruneWorktrees(ctx, r.dir); pruneErr != nil {
		return err
	}
	return gitops.AddWorktree(ctx, r.dir, path, commit)
}

// land moves the base to the validated result by compare-and-swap, then brings the work
// trees that have the base checked out along — those that were clean while their HEAD
// was still the old commit. scratchGone waits for the removal of the scratch worktree,
// under way meanwhile: land returns only after it, and records the merge as merged only
// after it.
func (r repo) land(ctx context.Context, entry history.Merge, scratchGone func()) (Outcome, error) {
	defer scratchGone()
	entry.Phase, entry.Validator = history.PhaseLanding, 0
	read := make(chan []Tree, 1)
	go func() { read <- r.checkouts(ctx, entry.BaseBranch) }() // reads only: beside the record's flush
	err := r.save(entry)
	trees := <-read
	if err != nil {
		return Outcome{}, err
	}
	reason := fmt.Sprintf("git ralph merge %s", entry.Name)
	if err := gitops.SwapRef(ctx, r.dir, entry.BaseBranch, entry.Result, entry.BaseBefore, reason); err != nil {
		return Outcome{}, err // ErrRefMoved: the caller tries again; the base is untouched
	}
	// the landing record stands while the work trees follow: the recovery finishes a
	// merge whose base moved to Result from it as well
	for i := range trees {
		if trees[i].Problem == "" {
			trees[i] = r.move(ctx, trees[i].Path, entry.BaseBefore, entry.Result)
		}
	}
	scratchGone()
	entry.Scratch = ""
	return r.finish(entry, trees)
}

// finish records a merge whose base moved and whose work trees followed as merged, its
// scratch worktree removed first (a kill between the two leaves it to the recovery).
func (r repo) finish(entry history.Merge, trees []Tree) (Outcome, error) {
	r.removeScratch(entry.Scratch)
	entry.State, entry.Phase, entry.Scratch, entry.FinishedAt = history.MergeMerged, "", "", time.Now().UTC()
	return Outcome{Merge: entry, Trees: trees}, r.save(entry)
}

// alreadyMerged records a loop whose branch the base already holds.
func (r repo) alreadyMerged(entry history.Merge, err error) (Outcome, error) {
	if err != nil {
		return Outcome{}, r.drop(entry.Name, err)
	}
	entry.State, entry.Result, entry.FinishedAt = history.MergeMerged, entry.BaseBefore, time.Now().UTC()
	return Outcome{Merge: entry, AlreadyMerged: true}, r.save(entry)
}

// review records a merge that needs a person (or --resolve): the base was not moved.
func (r repo) review(entry history.Merge, problem string, conflicts []string, output string) (Outcome, error) {
	r.removeScratch(entry.Scratch)
	entry.State, entry.Phase, entry.Scratch, entry.Result, entry.Validator = history.MergeNeedsReview, "", "", "", 0
	entry.Problem, entry.Conflicts, entry.Output, entry.FinishedAt = problem, conflicts, output, time.Now().UTC()
	return Outcome{Merge: entry}, r.save(entry)
}

// drop takes a merge that failed for another reason out of the queue, its scratch
// worktree removed first, and returns err.
func (r repo) drop(name string, err error) error {
	if path := r.scratchPath(name); exists(path) {
		r.removeScratch(path)
	}
	history.RemoveMerge(r.common, name)
	return err
}

func (r repo) save(entry history.Merge) error { return history.SaveMerge(r.common, entry) }

// removeScratch removes the scratch worktree, whatever state it is in. It runs even
// after ctx ended: what it cleans up must not outlive the command.
func (r repo) removeScratch(path string) {
	if path != "" {
		gitops.RemoveWorktree(context.Background(), r.dir, path)
	}
}

// removeScratchMeanwhile starts removing the scratch worktree and returns what waits
// for the end of it (any number of times). Its git runs beside those that land the
// merge: they touch the base branch and the work trees that have it, never the scratch.
func (r repo) removeScratchMeanwhile(path string) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.removeScratch(path)
	}()
	return func() { <-done }
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
