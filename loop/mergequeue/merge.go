package mergequeue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
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

// mergeOnce is one try: the merge record (the loop's merge file) is saved before each step,
// so that a command killed at any moment leaves the next one enough to finish or undo it.
func (r repo) mergeOnce(ctx context.Context, req Request, loop history.WorktreeLoop, entry history.Merge) (Outcome, error) {
	before, tip, err := r.tips(ctx, loop)
	if err != nil {
		return Outcome{}, r.drop(req.Name, err)
	}
	entry.State, entry.BaseBefore, entry.Tip = history.MergeMerging, before, tip
	entry.Phase, entry.Scratch = history.PhaseBuilding, r.scratchPath(req.Name)
	if err := r.save(entry); err != nil {
		return Outcome{}, err
	}
	// the scratch worktree is added, without its files, while the merge is built
	added := r.addScratchMeanwhile(ctx, entry.Scratch, before)
	built, err := r.prepare(ctx, entry, req.Name)
	if addErr := added(); err == nil {
		err = addErr
	}
	switch {
	case err != nil:
		return Outcome{}, r.drop(req.Name, err)
	case built.done:
		r.removeScratch(entry.Scratch)
		return r.alreadyMerged(entry, nil)
	case len(built.Conflicts) > 0:
		return r.review(entry, "conflict", built.Conflicts, "")
	}
	say(req, fmt.Sprintf("merging %s (%s) into %s (%s) in a scratch worktree", branchName(loop.Branch), short(tip), branchName(loop.BaseBranch), short(before)))
	if built.Built, err = r.build(ctx, entry, req.Name, built); err != nil {
		return Outcome{}, r.drop(req.Name, err)
	}
	if len(built.Conflicts) > 0 {
		return r.review(entry, "conflict", built.Conflicts, "")
	}
	// recorded once the validate command runs, with its process group: until then the
	// building record stands for it (a kill drops either)
	entry.Phase, entry.Result = history.PhaseValidating, built.Commit
	if err := r.treesCanFollow(ctx, req, entry); err != nil {
		return Outcome{}, r.drop(req.Name, err)
	}
	if passed, output, err := r.validate(ctx, req, &entry); err != nil || !passed {
		if err != nil {
			return Outcome{}, r.drop(req.Name, err)
		}
		return r.review(entry, "validation failed", nil, output)
	}
	out, err := r.land(ctx, entry)
	out.FastForward = built.FastForward
	return out, err
}

// treesCanFollow spares a validation whose result could not land: a work tree with the
// base checked out whose changes are in the way (see inTheWay). Asked again at the
// landing, for changes made meanwhile; not asked here when there is nothing to validate.
func (r repo) treesCanFollow(ctx context.Context, req Request, entry history.Merge) error {
	if strings.TrimSpace(req.Validate) == "" {
		return nil
	}
	return inTheWay(entry, r.checkouts(ctx, entry.BaseBranch, entry.BaseBefore, entry.Result), false)
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

// prepared is a merge built as far as it goes without a work tree: the relation of the
// base and the tip, and the merge commit or the conflicting files when git could merge
// without one (see prepare).
type prepared struct {
	gitmerge.Built
	done bool   // the base holds the tip already
	ff   bool   // the base is an ancestor of the tip
	tree string // the merged tree, committed by build as it fills the scratch worktree
}

// prepare merges the tip into the base without a work tree, for a merge commit or a
// squash (`git merge-tree`): only objects nothing refers to yet are written. A
// fast-forward's result is the tip itself. A rebase, or a git too old for merge-tree,
// gets only the relation: it is built in the scratch worktree (see build).
func (r repo) prepare(ctx context.Context, entry history.Merge, name string) (prepared, error) {
	var merged gitmerge.Merged
	if entry.How != gitmerge.HowRebase {
		var err error
		merged, err = gitmerge.MergeTree(ctx, r.dir, entry.BaseBefore, entry.Tip)
		if err != nil && !errors.Is(err, gitmerge.ErrNoMergeTree) {
			return prepared{}, err
		}
	}
	done, ff, err := r.relation(ctx, entry, merged)
	p := prepared{done: done, ff: ff}
	switch {
	case err != nil || done:
		return p, err
	case ff && entry.How != gitmerge.HowSquash: // the result is the loop's own commit
		p.Built = gitmerge.Built{Commit: entry.Tip, FastForward: true}
	case len(merged.Conflicts) > 0:
		p.Conflicts = merged.Conflicts
	case merged.Tree != "":
		p.tree = merged.Tree
	}
	return p, err
}

func mergeMessage(entry history.Merge, name string) string {
	if entry.How == gitmerge.HowSquash {
		return fmt.Sprintf("Squashed ralph/%s into %s (git ralph merge)", name, branchName(entry.BaseBranch))
	}
	return fmt.Sprintf("Merge ralph/%s into %s (git ralph merge)", name, branchName(entry.BaseBranch))
}

// relation says whether the base already holds the tip, or is its ancestor. A conflict,
// or a merged tree unlike those of both, answers without asking git: neither holds the
// other.
func (r repo) relation(ctx context.Context, entry history.Merge, merged gitmerge.Merged) (done, ff bool, err error) {
	if len(merged.Conflicts) > 0 {
		return false, false, nil
	}
	if merged.Tree != "" {
		maybe, err := gitmerge.MayBeRelated(ctx, r.dir, merged.Tree, entry.BaseBefore, entry.Tip)
		if err != nil || !maybe {
			return false, false, err
		}
	}
	return gitmerge.Relation(ctx, r.dir, entry.BaseBefore, entry.Tip)
}

// build fills the scratch worktree, added at the base without its files, for the
// validation: with the merged tree prepare made, committed meanwhile (one checkout of the
// result); with the tip of a fast-forward; or, for a rebase or a git too old for
// merge-tree, with the base, on which the merge is built in the scratch worktree itself.
func (r repo) build(ctx context.Context, entry history.Merge, name string, p prepared) (gitmerge.Built, error) {
	switch {
	case p.tree != "":
		return r.commitAndFill(ctx, entry, name, p.tree)
	case p.Commit != "":
		return p.Built, gitwt.Reset(ctx, entry.Scratch, p.Commit)
	}
	if err := gitwt.Reset(ctx, entry.Scratch, entry.BaseBefore); err != nil {
		return gitmerge.Built{}, err
	}
	return gitmerge.BuildInWorktree(ctx, entry.Scratch, entry.BaseBefore, entry.Tip, entry.How, mergeMessage(entry, name), p.ff)
}

// commitAndFill commits the merged tree (`git commit-tree`) while the scratch worktree's
// index and files are filled with it (`git read-tree`: the two need only the tree), then
// points the scratch worktree's HEAD at the commit: what `git reset --hard` to the
// commit would leave, one git process's time sooner.
func (r repo) commitAndFill(ctx context.Context, entry history.Merge, name, tree string) (gitmerge.Built, error) {
	committed := make(chan error, 1)
	var built gitmerge.Built
	go func() {
		var err error
		built, err = gitmerge.CommitTree(ctx, r.dir, tree, entry.BaseBefore, entry.Tip, entry.How, mergeMessage(entry, name))
		committed <- err
	}()
	fillErr := gitwt.Fill(ctx, entry.Scratch, tree)
	if err := <-committed; err != nil {
		return gitmerge.Built{}, err
	}
	if fillErr != nil {
		return gitmerge.Built{}, fillErr
	}
	return built, gitwt.DetachScratchHead(ctx, r.common, entry.Scratch, built.Commit)
}

// addScratchMeanwhile starts adding the scratch worktree at path, detached at commit and
// without its files, and returns what waits for the end of it (any number of times). A
// leftover of a crash the recovery could not remove goes first. Its git runs beside
// those that build the merge: they write only objects, the scratch worktree nothing else.
func (r repo) addScratchMeanwhile(ctx context.Context, path, commit string) func() error {
	if exists(path) {
		r.removeScratch(path)
	}
	done := make(chan error, 1)
	go func() { done <- r.addScratch(ctx, path, commit) }()
	return sync.OnceValue(func() error { return <-done })
}

// addScratch adds the scratch worktree at path. A scratch directory someone deleted by
// hand is still in git's list, which refuses the place: forgotten, then tried again.
func (r repo) addScratch(ctx context.Context, path, commit string) error {
	err := gitwt.AddScratch(ctx, r.dir, r.common, path, commit)
	if err == nil {
		return nil
	}
	if pruneErr := gitwt.Prune(ctx, r.dir); pruneErr != nil {
		return err
	}
	return gitwt.AddScratch(ctx, r.dir, r.common, path, commit)
}

// land moves the base to the validated result by compare-and-swap, then brings the work
// trees that have the base checked out along, keeping their changes (see trees.go).
// Whether each can follow is asked first, while the landing record is flushed: when one
// cannot, the base is not moved. The scratch worktree has served: it is removed while
// the base moves (not while the landing record is flushed, whose commit to the disk would
// carry its removal), and is gone before land returns (a try again reuses its place) and
// before the merged record.
func (r repo) land(ctx context.Context, entry history.Merge) (Outcome, error) {
	entry.Phase, entry.Validator = history.PhaseLanding, 0
	read := make(chan []Checkout, 1)
	go func() { read <- r.checkouts(ctx, entry.BaseBranch, entry.BaseBefore, entry.Result) }() // reads only: beside the record's flush
	err := r.save(entry)
	trees := <-read
	if err == nil {
		err = inTheWay(entry, trees, false)
	}
	if err != nil { // a kill before the drop: the recovery lands it, its trees refuse, it is undone
		return Outcome{}, r.drop(entry.Name, err)
	}
	scratchGone := r.removeScratchMeanwhile(entry.Scratch)
	defer scratchGone()
	reason := fmt.Sprintf("git ralph merge %s", entry.Name)
	if err := gitops.SwapRef(ctx, r.dir, entry.BaseBranch, entry.Result, entry.BaseBefore, reason); err != nil {
		return Outcome{}, err // ErrRefMoved: the caller tries again; the base is untouched
	}
	// the landing record stands while the work trees follow: the recovery finishes a
	// merge whose base moved to Result from it as well
	trees, moved, err := r.followAll(ctx, entry, trees)
	scratchGone()
	entry.Scratch = ""
	if err != nil && r.undoLanding(ctx, entry, moved) {
		return Outcome{}, r.drop(entry.Name, inTheWay(entry, trees, true))
	}
	return r.finish(entry, trees)
}

// finish records a merge whose base moved and whose work trees followed as merged, its
// scratch worktree removed first (a kill between the two leaves it to the recovery).
func (r repo) finish(entry history.Merge, trees []Checkout) (Outcome, error) {
	r.removeScratch(entry.Scratch)
	entry.State, entry.Phase, entry.Scratch, entry.FinishedAt = history.MergeMerged, "", "", time.Now().UTC()
	entry.TreesFollowed = true
	for _, t := range trees {
		entry.TreesFollowed = entry.TreesFollowed && t.Problem == ""
	}
	return Outcome{Merge: entry, Checkouts: trees}, r.save(entry)
}

// alreadyMerged records a loop whose branch the base already holds.
func (r repo) alreadyMerged(entry history.Merge, err error) (Outcome, error) {
	if err != nil {
		return Outcome{}, r.drop(entry.Name, err)
	}
	entry.State, entry.Phase, entry.Scratch = history.MergeMerged, "", ""
	entry.Result, entry.FinishedAt = entry.BaseBefore, time.Now().UTC()
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

// removeScratch removes the scratch worktree, whatever state it is in (without a git
// process when its files are as git added them). It runs even after ctx ended: what it
// cleans up must not outlive the command.
func (r repo) removeScratch(path string) {
	if path != "" {
		gitwt.RemoveScratch(context.Background(), r.dir, r.common, path)
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
