package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
)

// RollbackCmd is `git ralph rollback`.
type RollbackCmd struct {
	Target string `arg:"" name:"N|initial" help:"The iteration to undo, with every one after it; 'initial' goes back to before the last run's first iteration."`
	Force  bool   `help:"Roll back even if the work tree has uncommitted changes; they are kept in a backup ref first."`
}

// backupRef is where a rollback keeps what it moves away from.
const backupRef = "refs/ralph/backup/"

// Run resets the current branch to the commit before iteration N, after keeping the
// current HEAD (and, with --force, the uncommitted work tree) in backup refs. It holds the
// repository's lock meanwhile, so no loop starts under it.
func (c *RollbackCmd) Run(ctx context.Context, s Streams) error {
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	lock, err := holdForRollback(ctx, root)
	if err != nil {
		return err
	}
	defer lock.Release()
	store, err := history.OpenStore(root)
	if err != nil {
		return err
	}
	n, err := c.iteration(root, store)
	if err != nil {
		return err
	}
	target, err := commitBefore(ctx, root, store, n)
	if err != nil {
		return err
	}
	dirty, err := c.checkWorkTree(ctx, root)
	if err != nil {
		return err
	}
	b, err := writeBackup(ctx, root, dirty, time.Now())
	if err != nil {
		return err
	}
	if err := gitops.ResetHard(ctx, root, target); err != nil {
		return withHint(err, "your previous HEAD is kept at %s", b.head)
	}
	if err := history.EnsureGitignore(root); err != nil { // the target may predate .ralph/.gitignore
		return err
	}
	b.report(s, target, n)
	return nil
}

// holdForRollback takes the lock a loop takes, refusing (exit 75) while one runs.
func holdForRollback(ctx context.Context, root string) (*history.Lock, error) {
	lock, err := acquireLock(ctx, root)
	var locked *history.LockedError
	if errors.As(err, &locked) {
		who := ""
		if h := locked.Holder; h.PID != 0 {
			who = fmt.Sprintf(" (pid %d on host %s since %s)", h.PID, h.Host, localTime(h.Since))
		}
		return nil, &exitError{code: exitBusy, err: withHint(fmt.Errorf("a loop is running in this repository%s: not rolling back under it", who),
			"wait for it to finish, or stop it with 'git ralph cancel', then roll back")}
	}
	return lock, err
}

// iteration is the number Target names: N itself, or for "initial" the first recorded
// iteration of the last run.
func (c *RollbackCmd) iteration(root string, store *history.Store) (int, error) {
	if c.Target != "initial" {
		n, err := strconv.Atoi(c.Target)
		if err != nil || n < 1 {
			return 0, withHint(fmt.Errorf("%q is not an iteration number or 'initial'", c.Target),
				"e.g. 'git ralph rollback 3'; 'git ralph history' lists the iterations")
		}
		return n, nil
	}
	state, err := history.LoadState(root)
	if err != nil {
		return 0, err
	}
	if !state.Exists() {
		return 0, withHint(errors.New("no loop has run in this repository: nothing to roll back"), "'git ralph loop' starts one")
	}
	return firstOfRun(store, state.Run)
}

// firstOfRun walks the history down from the newest record while the records belong to
// run (runs never overlap), so it reads only that run's records.
func firstOfRun(store *history.Store, run string) (int, error) {
	last, err := store.Last()
	if err != nil {
		return 0, err
	}
	first := 0
	for n := last; n >= 1; n-- {
		rec, err := store.Get(n)
		if errors.Is(err, history.ErrNoRecord) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if rec.Run != run {
			break
		}
		first = n
	}
	if first == 0 {
		return 0, withHint(fmt.Errorf("the last run (%s) has no recorded iteration", run), "'git ralph history' lists the iterations; roll back to one by number")
	}
	return first, nil
}

// commitBefore is the commit HEAD was on when iteration n started.
func commitBefore(ctx context.Context, root string, store *history.Store, n int) (string, error) {
	ref, err := loop.CheckpointRef(ctx, root, n, "before")
	if err != nil {
		return "", err
	}
	commit, err := gitops.ResolveRef(ctx, root, ref+"^{commit}")
	if err != nil || commit != "" {
		return commit, err
	}
	rec, err := store.Get(n)
	switch {
	case errors.Is(err, history.ErrNoRecord):
		return "", missingIteration(store, n, "checkpoint "+ref)
	case err != nil:
		return "", err
	case rec.CommitBefore == "":
		return "", withHint(fmt.Errorf("iteration %d started on a branch with no commit yet: there is no commit to go back to", n),
			"roll back to a later iteration, or see its changes with 'git ralph history --diff %d'", n)
	}
	return "", withHint(fmt.Errorf("the checkpoint %s of iteration %d is missing", ref, n),
		"its commit was %s, if git still has it: 'git reset --hard %s'", rec.CommitBefore, rec.CommitBefore)
}

// checkWorkTree reports whether the work tree has uncommitted changes, refusing them
// without --force. git-ralph's own untracked files in .ralph/ do not count: a reset
// leaves them alone.
func (c *RollbackCmd) checkWorkTree(ctx context.Context, root string) (bool, error) {
	entries, err := gitops.Status(ctx, root)
	if err != nil {
		return false, err
	}
	var paths []string
	for _, e := range entries {
		if !(e.Untracked() && strings.HasPrefix(e.Path, history.Dir+"/")) {
			paths = append(paths, e.Path)
		}
	}
	if len(paths) > 0 && !c.Force {
		return false, withHint(fmt.Errorf("uncommitted changes would be lost: %s", summarisePaths(paths)),
			"commit or stash them first, or pass --force to keep them in a backup ref and roll back anyway")
	}
	return len(paths) > 0, nil
}

// summarisePaths names the first few paths and counts the rest.
func summarisePaths(paths []string) string {
	const shown = 3
	if len(paths) <= shown {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:shown], ", "), len(paths)-shown)
}

// backup names the refs a rollback wrote; worktree is empty when the tree was clean.
type backup struct {
	head, worktree string
}

// writeBackup keeps HEAD, and the dirty work tree as a tree object, under refs named by
// the UTC time (with -2, -3, … if a rollback in the same second took the name).
func writeBackup(ctx context.Context, root string, dirty bool, now time.Time) (backup, error) {
	head, err := gitops.Head(ctx, root)
	if err != nil {
		return backup{}, err
	}
	if head == "" {
		return backup{}, errors.New("HEAD has no commit yet: there is nothing to roll back")
	}
	var tree string
	if dirty {
		if tree, err = gitops.Snapshot(ctx, root); err != nil {
			return backup{}, err
		}
	}
	b, err := freeBackupNames(ctx, root, now)
	if err != nil {
		return backup{}, err
	}
	refs := []gitops.Ref{{Name: b.head, Hash: head}}
	if dirty {
		refs = append(refs, gitops.Ref{Name: b.worktree, Hash: tree})
	} else {
		b.worktree = ""
	}
	return b, gitops.CreateRefs(ctx, root, refs)
}

func freeBackupNames(ctx context.Context, root string, now time.Time) (backup, error) {
	base := backupRef + now.UTC().Format("20060102T150405Z")
	for i := 1; i <= 100; i++ {
		name := base
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		b := backup{head: name, worktree: name + "-worktree"}
		h, err1 := gitops.ResolveRef(ctx, root, b.head)
		w, err2 := gitops.ResolveRef(ctx, root, b.worktree)
		if err := errors.Join(err1, err2); err != nil {
			return backup{}, err
		}
		if h == "" && w == "" {
			return b, nil
		}
	}
	return backup{}, fmt.Errorf("no free backup ref name under %s", base)
}

func (b backup) report(s Streams, target string, n int) {
	fmt.Fprintf(s.Stdout, "rolled back to %s (before iteration %d); previous HEAD kept at %s\n", shortHash(target), n, b.head)
	fmt.Fprintf(s.Stdout, "undo with: git reset --hard %s\n", b.head)
	if b.worktree != "" {
		fmt.Fprintf(s.Stdout, "uncommitted changes kept at %s; restore them with: git checkout %s -- .\n", b.worktree, b.worktree)
	}
}
