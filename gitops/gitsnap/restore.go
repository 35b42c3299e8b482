package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// A Restore brings a repository back to a Checkpoint: HEAD (the current branch, or a
// detached HEAD) to its commit, the index to that commit's tree, and the work tree to its
// Tree, so that what was uncommitted at the checkpoint is uncommitted again. Nothing it
// overwrites or deletes is lost: Present holds every such path as it is now, ignored files
// included, for a backup to keep.
type Restore struct {
	Target  gitops.Checkpoint
	Head    string // the commit HEAD points to now
	Present string // tree: the work tree now, with the ignored files the restore touches
	Goal    string // tree: what the work tree becomes (Target.Tree less the paths left alone)

	Changed     []string // paths the restore writes, creates or deletes
	Uncommitted []string // the changed paths whose present content HEAD does not hold
	Ignored     []string // the ignored files among Present: ignored now, touched by the restore

	// Nested git repositories (a submodule, a clone inside the work tree) that writing
	// Goal would delete or write into. A tree holds only their commit, not their files
	// or history, so no backup can keep them: the caller must refuse.
	NestedInTheWay []string
}

// PlanRestore works out what restoring target would change, touching nothing but the
// object store. dir is the top of the work tree.
//
// Ignored files are left alone unless the target needs their path: it holds a file there,
// a directory where the file is, or a file where one of its parent directories is. Files
// under own (git-ralph's own directory, such as ".ralph") that neither HEAD nor the target
// commit tracks are left alone too, whatever they hold.
func PlanRestore(ctx context.Context, dir string, target gitops.Checkpoint, own string) (Restore, error) {
	r := Restore{Target: target}
	var err error
	if r.Head, err = gitops.Head(ctx, dir); err != nil {
		return r, err
	}
	snapshot, err := snapshotAt(ctx, dir, r.Head) // HEAD as just read: once, and the same for both
	if err != nil {
		return r, err
	}
	targetFiles, err := treeFiles(ctx, dir, target.Tree, "")
	if err != nil {
		return r, err
	}
	if r.Ignored, err = touchedIgnored(ctx, dir, targetFiles); err != nil {
		return r, err
	}
	leave, err := ownUntracked(ctx, dir, own, []string{snapshot, target.Tree}, []string{r.Head, target.Head})
	if err != nil {
		return r, err
	}
	unknown, err := unknownToTarget(ctx, dir, snapshot, target.Tree, targetFiles)
	if err != nil {
		return r, err
	}
	if r.Present, err = editTree(ctx, dir, snapshot, r.Ignored, append(leave, unknown...)); err != nil {
		return r, err
	}
	if r.Goal, err = editTree(ctx, dir, target.Tree, nil, leave); err != nil {
		return r, err
	}
	if r.NestedInTheWay, err = nestedInTheWay(ctx, dir, r.Present, r.Goal); err != nil {
		return r, err
	}
	return r, r.compare(ctx, dir)
}

// nestedInTheWay lists the nested repositories of present (its gitlinks) that writing goal
// would delete or write into: goal holds something else than a gitlink at their path, a
// file or directory inside them, or a file where one of their parent directories is. git
// then removes the whole directory, its .git included. One that goal simply lacks is left
// where it is (git does not remove a non-empty directory it does not track).
func nestedInTheWay(ctx context.Context, dir, present, goal string) ([]string, error) {
	nested, err := gitlinks(ctx, dir, present)
	if err != nil || len(nested) == 0 {
		return nil, err
	}
	goalLinks, err := gitlinks(ctx, dir, goal)
	if err != nil {
		return nil, err
	}
	goalFiles, err := treeFiles(ctx, dir, goal, "")
	if err != nil {
		return nil, err
	}
	shape := newTreeShape(goalFiles)
	var inTheWay []string
	for p := range nested {
		if !goalLinks[p] && shape.touches(p) {
			inTheWay = append(inTheWay, p)
		}
	}
	return sortedSet(inTheWay), nil
}

// gitlinks lists the paths of tree's gitlinks (mode 160000: submodules, nested repositories).
func gitlinks(ctx context.Context, dir, tree string) (map[string]bool, error) {
	out, err := gitops.GitEnv(ctx, dir, nil, "ls-tree", "-r", "-z", "--full-tree", tree)
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", tree, err)
	}
	links := map[string]bool{}
	for _, entry := range gitstore.SplitNul(out) {
		meta, path, ok := strings.Cut(entry, "\t")
		if ok && strings.HasPrefix(meta, "160000 ") {
			links[path] = true
		}
	}
	return links, nil
}

// unknownToTarget lists the files of snapshot that the target tree lacks but would
// ignore, and that no file of the target is in the way of. The checkpoint could not have
// recorded them even if they existed then, so a restore cannot know they should go: it
// leaves them where they are. (An undo thus never deletes what its rollback left alone
// because it was ignored then.)
func unknownToTarget(ctx context.Context, dir, snapshot, target string, targetFiles []string) ([]string, error) {
	present, err := treeFiles(ctx, dir, snapshot, "")
	if err != nil {
		return nil, err
	}
	shape := newTreeShape(targetFiles)
	var gone []string
	for _, p := range present {
		if !shape.touches(p) {
			gone = append(gone, p)
		}
	}
	return ignoredByTree(ctx, dir, target, gone)
}

// compare fills Changed and Uncommitted from the Present and Goal trees and HEAD.
func (r *Restore) compare(ctx context.Context, dir string) error {
	var err error
	if r.Changed, err = diffPaths(ctx, dir, r.Present, r.Goal); err != nil {
		return err
	}
	if r.Head == "" {
		r.Uncommitted = r.Changed
		return nil
	}
	sinceHead, err := diffPaths(ctx, dir, r.Head+"^{tree}", r.Present)
	if err != nil {
		return err
	}
	r.Uncommitted = intersect(r.Changed, sinceHead)
	return nil
}

// IsIgnored reports whether path is one of the ignored files the restore touches.
func (r Restore) IsIgnored(path string) bool {
	i := sort.SearchStrings(r.Ignored, path)
	return i < len(r.Ignored) && r.Ignored[i] == path
}

// CheckIndexUnlocked fails while the index is locked by another git process (an editor
// opened by 'git commit', a crashed git that left index.lock): Apply would write the work
// tree and then fail to move HEAD, leaving the two out of step.
func CheckIndexUnlocked(ctx context.Context, dir string) error {
	lock, err := gitops.GitPath(ctx, dir, "index.lock")
	if err != nil {
		return err
	}
	if _, err := os.Lstat(lock); err == nil {
		return fmt.Errorf("the index is locked by another git process (%s exists)", lock)
	}
	return nil
}

// Apply makes the work tree match Goal, then moves HEAD to the target commit and resets the
// index to its tree, leaving the work tree as it is. A target taken before the first commit
// makes the branch unborn again, with an empty index. reflog is the reflog message. git
// itself refuses (and Apply fails before moving HEAD) if a file changed since the plan.
func (r Restore) Apply(ctx context.Context, dir, reflog string) error {
	var branch string
	if r.Target.Head == "" {
		var err error
		if branch, err = gitops.HeadBranch(ctx, dir); err != nil {
			return err
		}
		if branch == "" {
			return errors.New("the checkpoint was taken before the first commit, and HEAD is detached: there is no branch to empty")
		}
	}
	if err := r.checkout(ctx, dir); err != nil {
		return fmt.Errorf("restoring the work tree: %w", err)
	}
	if r.Target.Head == "" {
		return r.unbornBranch(ctx, dir, branch, reflog)
	}
	env := []string{"GIT_REFLOG_ACTION=" + reflog}
	if _, err := gitops.GitEnv(ctx, dir, env, "reset", "--quiet", "--no-recurse-submodules", "--mixed", r.Target.Head, "--"); err != nil {
		return fmt.Errorf("moving HEAD to %s: %w", r.Target.Head, err)
	}
	return nil
}

// unbornBranch deletes branch (if it points to a commit, the one the plan saw), so that
// HEAD names a branch with no commit yet, and empties the index.
func (r Restore) unbornBranch(ctx context.Context, dir, branch, reflog string) error {
	if r.Head != "" {
		if _, err := gitops.Git(ctx, dir, "update-ref", "-m", reflog, "-d", branch, r.Head); err != nil {
			return fmt.Errorf("emptying %s: %w", branch, err)
		}
	}
	if _, err := gitops.Git(ctx, dir, "read-tree", "--empty"); err != nil {
		return fmt.Errorf("emptying the index: %w", err)
	}
	return nil
}

// checkout is a two-tree `read-tree -m -u Present Goal` on a scratch index that holds
// Present: git writes what differs and deletes what Goal lacks, refusing to overwrite a
// file that is no longer what Present says. The scratch index starts as a copy of the real
// one so that git only rehashes the files whose stat data the real index does not vouch for.
func (r Restore) checkout(ctx context.Context, dir string) error {
	return withScratchIndex(ctx, dir, func(env []string) error {
		if _, err := gitops.GitEnv(ctx, dir, env, "read-tree", "--reset", r.Present); err != nil {
			return err
		}
		_, err := gitops.GitEnv(ctx, dir, env, "update-index", "-q", "--refresh")
		var gitErr *gitops.Error
		if err != nil && !(errors.As(err, &gitErr) && gitErr.ExitCode == 1) {
			return err
		}
		_, err = gitops.GitEnv(ctx, dir, env, "read-tree", "--no-recurse-submodules", "-m", "-u", r.Present, r.Goal)
		return err
	})
}

// withScratchIndex runs fn with GIT_INDEX_FILE set to a copy of the repository's index,
// kept in the git directory and removed afterwards.
func withScratchIndex(ctx context.Context, dir string, fn func(env []string) error) error {
	index, err := gitops.GitPath(ctx, dir, "index")
	if err != nil {
		return err
	}
	scratchDir, err := os.MkdirTemp(filepath.Dir(index), "ralph-index-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratchDir)
	scratch := filepath.Join(scratchDir, "index")
	if err := copyIndex(index, scratch); err != nil {
		return err
	}
	return fn([]string{"GIT_INDEX_FILE=" + scratch, "GIT_LITERAL_PATHSPECS=1"})
}

// editTree writes a tree: tree, plus the work-tree files add (added even though ignored),
// less the paths drop.
func editTree(ctx context.Context, dir, tree string, add, drop []string) (string, error) {
	if len(add) == 0 && len(drop) == 0 {
		return tree, nil
	}
	var out string
	err := withScratchIndex(ctx, dir, func(env []string) error {
		if _, err := gitops.GitEnv(ctx, dir, env, "read-tree", tree); err != nil {
			return err
		}
		if len(add) > 0 {
			if err := gitStdin(ctx, dir, env, nulJoin(add), "add", "--force", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
				return err
			}
		}
		if len(drop) > 0 {
			if err := gitStdin(ctx, dir, env, nulJoin(drop), "update-index", "--force-remove", "-z", "--stdin"); err != nil {
				return err
			}
		}
		var err error
		out, err = gitops.GitEnv(ctx, dir, env, "write-tree")
		return err
	})
	if err != nil {
		return "", fmt.Errorf("writing the tree of the work tree to keep: %w", err)
	}
	return out, nil
}

// Unkept lists the uncommitted changed paths whose present content differs from what
// tree holds: those the restore would lose if tree were the only other copy kept.
func (r Restore) Unkept(ctx context.Context, dir, tree string) ([]string, error) {
	if tree == "" || len(r.Uncommitted) == 0 {
		return r.Uncommitted, nil
	}
	differ, err := diffPaths(ctx, dir, tree, r.Present)
	if err != nil {
		return nil, err
	}
	return intersect(r.Uncommitted, differ), nil
}

// UncommittedAtTarget lists the paths where the restored work tree differs from the
// target commit: the checkpoint's uncommitted and untracked files, uncommitted again.
func (r Restore) UncommittedAtTarget(ctx context.Context, dir string) ([]string, error) {
	from := emptyTree
	if r.Target.Head != "" {
		from = r.Target.Head + "^{tree}"
	}
	return diffPaths(ctx, dir, from, r.Goal)
}

// emptyTree is the hash of the tree with no entries, which git knows without storing it.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
