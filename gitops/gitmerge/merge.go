package gitmerge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
)

// How a branch is brought onto another: a merge commit (or a fast-forward when
// possible), one squashed commit, or its commits replayed on top.
const (
	HowMerge  = "merge"
	HowSquash = "squash"
	HowRebase = "rebase"
)

// Built is the commit a merge built, or the files that conflicted (then Commit is "").
type Built struct {
	Commit      string
	Conflicts   []string
	FastForward bool
}

// Relation says how tip stands to base: merged (base already holds every commit of tip)
// or fastForward (base is an ancestor of tip), from their merge base, in one git call.
func Relation(ctx context.Context, dir, base, tip string) (merged, fastForward bool, err error) {
	mb, err := gitops.Git(ctx, dir, "merge-base", "--end-of-options", base, tip)
	var gitErr *gitops.Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return false, false, nil // no common history
	}
	if err != nil {
		return false, false, fmt.Errorf("finding the merge base of %s and %s: %w", base, tip, err)
	}
	return mb == tip, mb == base, nil
}

// BuildInWorktree brings tip onto base in the scratch work tree (detached at base) as how
// says, committing with message, and returns the commit to move the base to. A merge
// whose base is an ancestor of tip (ff, from Relation) is a fast-forward to tip (for
// HowMerge and HowRebase). A conflict is not an error: the work tree is put back at base and the
// conflicting files are returned.
func BuildInWorktree(ctx context.Context, scratch, base, tip, how, message string, ff bool) (Built, error) {
	if ff && how != HowSquash {
		if _, err := gitops.Git(ctx, scratch, "checkout", "--quiet", "--detach", tip); err != nil {
			return Built{}, fmt.Errorf("checking out %s in the scratch worktree: %w", tip, err)
		}
		return Built{Commit: tip, FastForward: true}, nil
	}
	switch how {
	case HowSquash:
		return buildStep(ctx, scratch, []string{"merge", "--squash", "--quiet", tip}, []string{"merge", "--abort"}, message)
	case HowRebase:
		if _, err := gitops.Git(ctx, scratch, "checkout", "--quiet", "--detach", tip); err != nil {
			return Built{}, fmt.Errorf("checking out %s in the scratch worktree: %w", tip, err)
		}
		return buildStep(ctx, scratch, []string{"rebase", "--quiet", base}, []string{"rebase", "--abort"}, "")
	}
	return buildStep(ctx, scratch, []string{"merge", "--no-ff", "--no-edit", "--quiet", "-m", message, tip}, []string{"merge", "--abort"}, "")
}

// ErrNoMergeTree means this git cannot merge without a work tree (`git merge-tree
// --write-tree` came with git 2.38): the caller builds the merge in a work tree instead.
var ErrNoMergeTree = errors.New("git merge-tree --write-tree is not supported by this git")

// Build builds the merge of tip into base without touching any work tree (`git
// merge-tree --write-tree`, then `git commit-tree`): a merge commit with both as parents,
// or for HowSquash one commit on base with the merged files. A conflict is not an error:
// the conflicting files are returned and no commit is made.
func Build(ctx context.Context, dir, base, tip, how, message string) (Built, error) {
	merged, err := MergeTree(ctx, dir, base, tip)
	if err != nil || len(merged.Conflicts) > 0 {
		return Built{Conflicts: merged.Conflicts}, err
	}
	return CommitTree(ctx, dir, merged.Tree, base, tip, how, message)
}

// Merged is the tree of a merge built without a work tree, or the files that conflicted
// (then Tree is "").
type Merged struct {
	Tree      string
	Conflicts []string
}

// MergeTree merges tip into base without touching any work tree (`git merge-tree
// --write-tree`): the merged tree, or the conflicting files (not an error). It returns
// ErrNoMergeTree when this git cannot.
func MergeTree(ctx context.Context, dir, base, tip string) (Merged, error) {
	var stdout bytes.Buffer // the conflicting files come with exit code 1
	err := gitops.GitTo(ctx, dir, nil, nil, &stdout, "merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", base, tip)
	out := stdout.String()
	var gitErr *gitops.Error
	switch {
	case errors.As(err, &gitErr) && gitErr.ExitCode == 1:
		fields := strings.Split(strings.TrimRight(out, "\x00"), "\x00")
		if len(fields) < 2 {
			return Merged{}, fmt.Errorf("merging %s into %s: %w", tip, base, err)
		}
		return Merged{Conflicts: dedupe(fields[1:])}, nil
	case errors.As(err, &gitErr) && gitErr.ExitCode == 129:
		return Merged{}, ErrNoMergeTree // an option this git does not know
	case err != nil:
		return Merged{}, fmt.Errorf("merging %s into %s: %w", tip, base, err)
	}
	tree, _, _ := strings.Cut(out, "\x00")
	return Merged{Tree: tree}, nil
}

// CommitTree commits tree, the merge of tip into base (`git commit-tree`): with both as
// parents, or for HowSquash with base only.
func CommitTree(ctx context.Context, dir, tree, base, tip, how, message string) (Built, error) {
	args := []string{"commit-tree", tree, "-p", base, "-p", tip, "-m", message}
	if how == HowSquash {
		args = []string{"commit-tree", tree, "-p", base, "-m", message}
	}
	commit, err := gitops.Git(ctx, dir, args...)
	if err != nil {
		return Built{}, fmt.Errorf("committing the merge of %s into %s: %w", tip, base, err)
	}
	return Built{Commit: commit}, nil
}

// MayBeRelated reports whether tree, the merge of tip into base, leaves open that one
// holds the other: it is then base's tree (tip may be merged already) or tip's (base may
// be its ancestor). A tree unlike both, read with go-git without a process, is a true
// merge, and Relation need not be asked.
func MayBeRelated(ctx context.Context, dir, tree, base, tip string) (bool, error) {
	for _, commit := range []string{base, tip} {
		t, err := gitops.TreeOf(ctx, dir, commit)
		if err != nil {
			return false, err
		}
		if t == tree {
			return true, nil
		}
	}
	return false, nil
}

// dedupe drops repeated names, keeping the order (a file conflicts in several stages).
func dedupe(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// buildStep runs the git command that builds the merge; on a conflict it lists the
// conflicting files and runs abort. With a message the result is committed after (a
// squash); a squash that brings nothing leaves HEAD where it was.
func buildStep(ctx context.Context, scratch string, args, abort []string, message string) (Built, error) {
	_, err := gitops.Git(ctx, scratch, args...)
	if err != nil {
		files, listErr := Conflicts(ctx, scratch)
		if listErr != nil || len(files) == 0 {
			return Built{}, fmt.Errorf("building the merge: %w", err)
		}
		gitops.Git(ctx, scratch, abort...) // the scratch worktree is removed anyway
		return Built{Conflicts: files}, nil
	}
	if message != "" {
		if _, err := gitops.CommitAll(ctx, scratch, message); err != nil {
			return Built{}, fmt.Errorf("committing the squashed merge: %w", err)
		}
	}
	head, err := gitops.Git(ctx, scratch, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return Built{}, fmt.Errorf("reading the merge's commit: %w", err)
	}
	return Built{Commit: head}, nil
}

// Conflicts lists the files left unmerged in dir's index.
func Conflicts(ctx context.Context, dir string) ([]string, error) {
	out, err := gitops.Git(ctx, dir, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return nil, fmt.Errorf("listing the conflicting files: %w", err)
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// MoveCheckout brings the index and files of the work tree dir from the tree of commit
// from to that of commit to (`git read-tree -m -u from to`), after its branch moved from
// one to the other, keeping the changes of the user's that the move does not touch. git
// refuses, changing nothing, where that would overwrite a change or an untracked file:
// then the error is a *CheckoutRefused.
func MoveCheckout(ctx context.Context, dir, from, to string) error {
	return readTreeMove(ctx, dir, "updating the files of "+dir, "-m", "-u", from, to)
}

// MergeTrees merges the change from base to theirs into ours, three trees, without
// touching any work tree: the merged tree, or the conflicting files. git 2.39's
// merge-tree takes commits and finds their merge base itself, so the trees are wrapped in
// commits whose one common ancestor is base's.
func MergeTrees(ctx context.Context, dir, base, ours, theirs string) (Merged, error) {
	if ours == base {
		return Merged{Tree: theirs}, nil
	}
	if theirs == base || theirs == ours {
		return Merged{Tree: ours}, nil
	}
	b, err := gitops.CommitTree(ctx, dir, base, "", "base")
	if err != nil {
		return Merged{}, err
	}
	o, err := gitops.CommitTree(ctx, dir, ours, b, "ours")
	if err != nil {
		return Merged{}, err
	}
	t, err := gitops.CommitTree(ctx, dir, theirs, b, "theirs")
	if err != nil {
		return Merged{}, err
	}
	return MergeTree(ctx, dir, o, t)
}
