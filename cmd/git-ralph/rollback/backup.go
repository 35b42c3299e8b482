package rollback

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
)

// backupRef is where a rollback keeps what it replaces: one commit per rollback, whose
// tree is the work tree as it was (with the ignored files the rollback overwrote or
// deleted) and whose parent is the commit HEAD was on. Refs under refs/ralph/ are not
// pushed by git push's defaults, which matters: the tree may hold ignored secrets.
const backupRef = "refs/ralph/backup/"

// Trailers of a backup commit's message, read back by --undo.
const (
	trailerHead     = "Ralph-Head"     // the commit HEAD was on, or "" on a branch with none yet
	trailerBranch   = "Ralph-Branch"   // the branch HEAD was on, or "" when detached
	trailerRestored = "Ralph-Restored" // the tree the rollback wrote into the work tree
	trailerIndex    = "Ralph-Index"    // what the index staged, when it staged more than HEAD (optional)
)

// backup is the ref a rollback wrote: its full name and the short name --undo takes.
type backup struct {
	ref, name string
	staged    bool // the index staged more than HEAD, and the backup keeps it
}

// writeBackup keeps HEAD and the present work tree as a commit under a ref named by the
// UTC time (with -2, -3, … if a rollback in the same second took the name). The commit's
// parent is HEAD's commit, which it keeps alive; a branch with no commit yet gives none.
func writeBackup(ctx context.Context, root string, plan gitsnap.Restore, goal Goal, now time.Time) (backup, error) {
	branch, err := gitops.HeadBranch(ctx, root)
	if err != nil {
		return backup{}, err
	}
	b, err := freeBackupName(ctx, root, now)
	if err != nil {
		return backup{}, err
	}
	msg := fmt.Sprintf("git-ralph rollback backup: HEAD and work tree before '%s'\n\n"+
		"Put back with 'git ralph rollback --undo %s'.\n\n%s: %s\n%s: %s\n%s: %s\n",
		goal.command, b.name, trailerHead, plan.Head, trailerBranch, branch, trailerRestored, plan.Goal)
	// What is staged may differ from both HEAD and the work tree (git add -p): it is
	// kept too, as the tree of a second parent, or the reset would leave it to gc.
	staged, err := gitsnap.StagedTree(ctx, root, plan.Head)
	if err != nil {
		return backup{}, err
	}
	var stagedCommit string
	if b.staged = staged != ""; b.staged {
		msg += fmt.Sprintf("%s: %s\n", trailerIndex, staged)
		stagedCommit, err = gitops.CommitTree(ctx, root, staged, plan.Head,
			fmt.Sprintf("git-ralph rollback backup: what the index staged before '%s'\n", goal.command))
		if err != nil {
			return backup{}, fmt.Errorf("keeping the staged changes before rolling back: %w", err)
		}
	}
	commit, err := gitops.CommitTree(ctx, root, plan.Present, plan.Head, msg, stagedCommit)
	if err != nil {
		return backup{}, fmt.Errorf("keeping the work tree before rolling back: %w", err)
	}
	if err := gitops.CreateRefs(ctx, root, []gitops.Ref{{Name: b.ref, Hash: commit}}); err != nil {
		return backup{}, err
	}
	// The new blobs (the ignored files) were unreachable until the ref: a gc in between
	// could have pruned them. Change nothing unless the backup is whole.
	if err := gitops.CheckComplete(ctx, root, commit); err != nil {
		return backup{}, hints.Wrap(fmt.Errorf("the backup %s is incomplete, so nothing was rolled back: %w", b.ref, err),
			"a 'git gc' may have run meanwhile; try again")
	}
	return b, nil
}

func freeBackupName(ctx context.Context, root string, now time.Time) (backup, error) {
	base := now.UTC().Format("20060102T150405Z")
	for i := 1; i <= 100; i++ {
		name := base
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		b := backup{ref: backupRef + name, name: name}
		// An older git-ralph also wrote <name>-worktree; a name is free only with neither.
		h, err1 := gitops.ResolveRef(ctx, root, b.ref)
		w, err2 := gitops.ResolveRef(ctx, root, b.ref+"-worktree")
		if err := errors.Join(err1, err2); err != nil {
			return backup{}, err
		}
		if h == "" && w == "" {
			return b, nil
		}
	}
	return backup{}, fmt.Errorf("no free backup ref name under %s", backupRef+base)
}

// ToBackup is the goal of 'git ralph rollback --undo name', read from the backup a
// rollback wrote: the checkpoint to go back to is its parent and its tree. Replacing the
// work tree the rollback wrote loses nothing.
func ToBackup(ctx context.Context, root, name string) (Goal, error) {
	ref := name
	if !strings.HasPrefix(ref, "refs/") {
		ref = backupRef + name
	}
	hash, err := gitops.ResolveRef(ctx, root, ref+"^{commit}")
	if err != nil {
		return Goal{}, err
	}
	if !strings.HasPrefix(ref, backupRef) || hash == "" {
		return Goal{}, hints.Wrap(fmt.Errorf("no rollback backup %s", display.Printable(name)),
			"'git for-each-ref %s' lists the backups; pass the name a rollback printed", backupRef)
	}
	commit, err := gitops.ReadCommit(ctx, root, ref)
	if err != nil {
		return Goal{}, err
	}
	t, ok := backupTrailers(commit.Message)
	if !ok || t[trailerHead] != commit.Parent {
		return Goal{}, hints.Wrap(fmt.Errorf("%s was not written by this version's rollback: it cannot be undone with --undo", ref),
			"it holds the previous HEAD: 'git reset --hard %s' goes back to it (uncommitted changes, if kept, are at %s-worktree)", ref, ref)
	}
	if err := checkBranch(ctx, root, t[trailerBranch], "that rollback moved"); err != nil {
		return Goal{}, err
	}
	return Goal{checkpoint: gitops.Checkpoint{Head: commit.Parent, Tree: commit.Tree},
		what: "as before the rollback kept at " + ref, command: "git ralph rollback --undo " + name, kept: t[trailerRestored],
		staged: t[trailerIndex]}, nil
}

// backupTrailers reads the trailers of a backup commit's message; ok says all are there
// (Head and Branch may be empty, Restored may not).
func backupTrailers(msg string) (trailers map[string]string, ok bool) {
	trailers = readTrailers(msg)
	_, head := trailers[trailerHead]
	_, branch := trailers[trailerBranch]
	return trailers, head && branch && trailers[trailerRestored] != ""
}

// readTrailers reads the "Ralph-…: value" lines of a message git-ralph wrote; the last
// of a key wins, as the trailers come last.
func readTrailers(msg string) map[string]string {
	trailers := map[string]string{}
	for _, line := range strings.Split(msg, "\n") {
		key, value, found := strings.Cut(line, ":")
		if found && strings.HasPrefix(key, "Ralph-") && !strings.ContainsAny(key, " \t") {
			trailers[key] = strings.TrimSpace(value)
		}
	}
	return trailers
}

// checkBranch refuses to undo a rollback, or return to a checkpoint, on another branch
// than the one it moved or was taken on: did says which ("that rollback moved").
func checkBranch(ctx context.Context, root, branch, did string) error {
	now, err := gitops.HeadBranch(ctx, root)
	if err != nil || now == branch {
		return err
	}
	name := func(b string) string {
		if b == "" {
			return "a detached HEAD"
		}
		return "branch " + strings.TrimPrefix(b, "refs/heads/")
	}
	then := "undo"
	if !strings.HasPrefix(did, "that rollback") {
		then = "roll back"
	}
	return hints.Wrap(fmt.Errorf("%s %s, and HEAD is now on %s", did, name(branch), name(now)),
		"switch back first ('git switch %s'), then %s", strings.TrimPrefix(branch, "refs/heads/"), then)
}
