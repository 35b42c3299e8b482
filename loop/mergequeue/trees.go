package mergequeue

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/history"
)

// The work trees that have the base branch checked out follow each merge: their index
// and files are brought from the base's old commit to the new one by git's two-tree
// merge (`git read-tree -m -u OLD NEW`, git's own "switch branches keeping local
// edits"), which keeps the user's changes and refuses where one is in a path the merge
// writes. A tree whose branch moved while its index stayed behind would show the merge
// as staged deletions, and the user's next `git commit -a` would undo it: so a refusal
// found before the base moves keeps the base where it was, and one met after it (a change
// made meanwhile, or the recovery of a killed merge) puts the base back.

// checkouts are the work trees that have branch checked out, each asked, before the
// branch moves from before to after, whether its files can follow (a dry run of the
// two-tree merge: one git process for a clean tree, which always can). A tree that
// cannot carries the reason as its Problem.
func (r repo) checkouts(ctx context.Context, branch, before, after string) []Checkout {
	paths, err := gitwt.CheckedOut(ctx, r.dir, r.common, branch)
	if err != nil {
		return []Checkout{{Path: r.main, Problem: err.Error()}}
	}
	var trees []Checkout
	for _, path := range paths {
		t := Checkout{Path: path}
		if err := gitmerge.CheckMoveCheckout(ctx, path, before, after); err != nil {
			t.Problem, t.Paths = problem(err)
		}
		trees = append(trees, t)
	}
	return trees
}

// problem is a tree's problem in words, with the paths in the way when git named them.
func problem(err error) (string, []string) {
	var refused *gitmerge.CheckoutRefused
	if errors.As(err, &refused) {
		return "it has changes of its own in paths the merge writes: " + strings.Join(refused.Paths, ", "), refused.Paths
	}
	return err.Error(), nil
}

// inTheWay is the error of a merge not landed because a work tree with the base checked
// out could not follow it, or nil when every tree can.
func inTheWay(entry history.Merge, trees []Checkout, undone bool) error {
	for _, t := range trees {
		if t.Problem == "" {
			continue
		}
		base := branchName(entry.BaseBranch)
		what := "was left at"
		if undone {
			what = "was put back at"
		}
		advice := fmt.Sprintf("commit those changes or put them aside ('git stash'; 'git stash pop' after), then run 'git ralph merge %s' again", entry.Name)
		if len(t.Paths) == 0 {
			advice = fmt.Sprintf("git could not check that work tree (its message above); once it can, run 'git ralph merge %s' again", entry.Name)
		}
		return &Error{Err: fmt.Errorf("the work tree %s has %s checked out and its files cannot follow the merge of ralph/%s (%s); %s %s %s, the merge is not landed",
			t.Path, base, entry.Name, t.Problem, base, what, short(entry.BaseBefore)), Advice: advice}
	}
	return nil
}

// followAll brings each tree from the base's old commit to the merge, after the base
// moved. It stops at the first that refuses (a change made since the dry run) and
// returns the trees it moved, for undoing them.
func (r repo) followAll(ctx context.Context, entry history.Merge, trees []Checkout) ([]Checkout, []string, error) {
	var moved []string
	for i := range trees {
		if err := gitmerge.MoveCheckout(ctx, trees[i].Path, entry.BaseBefore, entry.Result); err != nil {
			trees[i].Problem, trees[i].Paths = problem(err)
			return trees, moved, err
		}
		trees[i].Updated = true
		moved = append(moved, trees[i].Path)
	}
	return trees, moved, nil
}

// undoLanding puts the base branch back from the merge to its old commit after a tree
// could not follow, the trees moved meanwhile first: never a branch ahead of its index.
// It reports false when that cannot be done (a tree will not go back, or the base moved
// on): the merge then stays landed, the trees moved back follow it again, and the trees
// that lag say so.
func (r repo) undoLanding(ctx context.Context, entry history.Merge, moved []string) bool {
	for i := len(moved) - 1; i >= 0; i-- {
		if err := gitmerge.MoveCheckout(ctx, moved[i], entry.Result, entry.BaseBefore); err != nil {
			r.followAgain(ctx, entry, moved[i+1:])
			return false
		}
	}
	reason := "git ralph merge " + entry.Name + " (undone: a work tree with the branch checked out could not follow)"
	if err := gitops.SwapRef(ctx, r.dir, entry.BaseBranch, entry.BaseBefore, entry.Result, reason); err != nil {
		r.followAgain(ctx, entry, moved)
		return false
	}
	return true
}

// followAgain brings the trees an undo had moved back to the old commit to the merge
// again, when the base stays there: never a branch ahead of its index.
func (r repo) followAgain(ctx context.Context, entry history.Merge, paths []string) {
	for _, path := range paths {
		gitmerge.MoveCheckout(ctx, path, entry.BaseBefore, entry.Result) // a refusal: the tree is named as lagging
	}
}

// lag is how a work tree's index stands to a merge from before to after: the paths the
// merge changes, and those of them whose index entry is still before's version.
type lag struct {
	changed []string
	behind  []string
}

// lagging reports whether the tree has none of the merge in its index: every path the
// merge changes still stands at the old version there (an index is written in one
// step, so a tree that followed has all of them). A path the user changed since counts
// as not behind.
func (l lag) lagging() bool { return len(l.changed) > 0 && len(l.behind) == len(l.changed) }

// partly reports whether some path of the merge is still behind in the index.
func (l lag) partly() bool { return len(l.behind) > 0 }

// lagOf compares the index of the work tree path with the merge from before to after:
// one git process when the index holds the merge (the usual case), three otherwise.
func lagOf(ctx context.Context, path, before, after string) (lag, error) {
	notAfter, err := gitmerge.IndexDiffers(ctx, path, after)
	if err != nil || len(notAfter) == 0 {
		return lag{}, err
	}
	changed, err := gitmerge.ChangedBetween(ctx, path, before, after)
	if err != nil {
		return lag{}, err
	}
	notBefore, err := gitmerge.IndexDiffers(ctx, path, before)
	if err != nil {
		return lag{}, err
	}
	differs, atBefore := set(notAfter), set(notBefore)
	l := lag{changed: changed}
	for _, p := range changed {
		if differs[p] && !atBefore[p] {
			l.behind = append(l.behind, p)
		}
	}
	return l, nil
}

func set(paths []string) map[string]bool {
	m := make(map[string]bool, len(paths))
	for _, p := range paths {
		m[p] = true
	}
	return m
}

// catchUp brings the trees that have the base checked out to the merge a killed command
// landed, each that still has some of it behind in its index (a tree that followed
// already is left as it is). It returns the trees, and whether one refused.
func (r repo) catchUp(ctx context.Context, entry history.Merge) (trees []Checkout, moved []string, refused bool) {
	paths, err := gitwt.CheckedOut(ctx, r.dir, r.common, entry.BaseBranch)
	if err != nil {
		return []Checkout{{Path: r.main, Problem: err.Error()}}, nil, true
	}
	for _, path := range paths {
		t := Checkout{Path: path, Updated: true}
		l, err := lagOf(ctx, path, entry.BaseBefore, entry.Result)
		if err == nil && l.partly() {
			if err = moveAfterKill(ctx, path, entry.BaseBefore, entry.Result); err == nil {
				moved = append(moved, path)
			}
		}
		if err != nil {
			t.Updated = false
			t.Problem, t.Paths = problem(err)
			refused = true
		}
		trees = append(trees, t)
	}
	return trees, moved, refused
}

// moveAfterKill is MoveCheckout for a tree a killed command may have left halfway
// through its move: the files it wrote already, which hold exactly the merge's version,
// are no change of the user's and are taken into the index first when git refuses.
func moveAfterKill(ctx context.Context, path, before, after string) error {
	err := gitmerge.MoveCheckout(ctx, path, before, after)
	var refused *gitmerge.CheckoutRefused
	if errors.As(err, &refused) {
		if n, adoptErr := gitmerge.AdoptWritten(ctx, path, after, refused.Paths); adoptErr == nil && n > 0 {
			err = gitmerge.MoveCheckout(ctx, path, before, after)
		}
	}
	return err
}

// UpdateCommand is what a user runs in a work tree left behind to bring its files from
// the base's old commit to the new one, keeping their changes (git refuses where a
// change would be overwritten).
func UpdateCommand(path, before, after string) string {
	return fmt.Sprintf("git -C %s read-tree -m -u %s %s", path, short(before), short(after))
}
