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
	Target string `arg:"" optional:"" name:"N|initial" help:"The iteration to undo, with every one after it; 'initial' goes back to before the last run's first iteration."`
	Undo   string `placeholder:"BACKUP" help:"Undo a rollback: put back the HEAD and work tree kept in the backup it printed."`
	Force  bool   `help:"Roll back even if that overwrites or deletes uncommitted work (ignored files included); it is kept in the backup ref first."`
}

// Run brings the branch, the index and the work tree back to the checkpoint taken before
// iteration N (or, with --undo, to what a rollback replaced), after keeping everything it
// overwrites or deletes in a backup ref. It holds the repository's lock meanwhile, so no
// loop starts under it.
func (c *RollbackCmd) Run(ctx context.Context, s Streams) error {
	if (c.Target == "") == (c.Undo == "") {
		return withHint(errors.New("name either an iteration or --undo BACKUP"),
			"e.g. 'git ralph rollback 3', or 'git ralph rollback --undo 20261121T200506Z'")
	}
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	if err := history.CheckOwnDirs(root); err != nil { // before anything changes, not after
		return err
	}
	lock, err := holdForRollback(ctx, root)
	if err != nil {
		return err
	}
	defer lock.Release()
	goal, err := c.goal(ctx, root, s)
	if err != nil {
		return err
	}
	plan, err := gitops.PlanRestore(ctx, root, goal.checkpoint, history.Dir)
	if err != nil {
		return err
	}
	if err := refuseNested(plan); err != nil {
		return err
	}
	if err := c.checkLosses(ctx, root, plan, goal); err != nil {
		return err
	}
	if err := gitops.CheckIndexUnlocked(ctx, root); err != nil {
		return withHint(err, "wait for that git command to end and roll back again; if none runs, a crashed one left the lock: remove the file")
	}
	b, err := writeBackup(ctx, root, plan, goal, time.Now())
	if err != nil {
		return err
	}
	if err := plan.Apply(ctx, root, "git-ralph rollback"); err != nil {
		return withHint(err, "what was there is kept at %s; 'git ralph rollback --undo %s' puts it back", b.ref, b.name)
	}
	if goal.staged != "" {
		if err := gitops.StageTree(ctx, root, goal.staged); err != nil {
			return withHint(err, "the files are back; what was staged is the tree %s ('git read-tree %s' stages it)", goal.staged, goal.staged)
		}
	}
	if err := history.EnsureGitignore(root); err != nil { // the target may predate .ralph/.gitignore
		return err
	}
	b.report(ctx, root, s, plan, goal)
	return nil
}

// rollbackGoal is where a rollback goes and what it may replace without a --force.
type rollbackGoal struct {
	checkpoint gitops.Checkpoint
	what       string         // "before iteration 3", "as before the rollback kept at refs/ralph/backup/…"
	command    string         // the command, for the backup's message
	kept       string         // a tree whose contents are kept elsewhere: replacing them loses nothing
	history    *history.Store // for a rollback to an iteration: its checkpoints keep contents too
	staged     string         // for an undo: the tree the index staged before the rollback, or ""
}

func (c *RollbackCmd) goal(ctx context.Context, root string, s Streams) (rollbackGoal, error) {
	if c.Undo != "" {
		return undoGoal(ctx, root, c.Undo)
	}
	store, err := history.OpenStore(root)
	if err != nil {
		return rollbackGoal{}, err
	}
	n, err := c.iteration(root, store)
	if err != nil {
		return rollbackGoal{}, err
	}
	cp, err := checkpointBefore(ctx, root, store, n, s)
	if err != nil {
		return rollbackGoal{}, err
	}
	return rollbackGoal{checkpoint: cp, what: fmt.Sprintf("before iteration %d", n),
		command: "git ralph rollback " + c.Target, kept: lastIterationTree(ctx, root, store), history: store}, nil
}

// lastIterationTree is the work tree the newest iteration left, which its checkpoint
// ref keeps: a work tree still as the agent left it holds nothing a rollback could lose.
// It is "" when that cannot be read, which only makes the rollback more careful.
func lastIterationTree(ctx context.Context, root string, store *history.Store) string {
	last, err := store.Last()
	if err != nil || last == 0 {
		return ""
	}
	ref, err := loop.CheckpointRef(ctx, root, last, "after-tree")
	if err != nil {
		return ""
	}
	tree, _ := gitops.ResolveRef(ctx, root, ref+"^{tree}")
	return tree
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
	first, damaged := 0, 0 // damaged: the newest unreadable record below first
	for n := last; n >= 1; n-- {
		rec, err := store.Get(n)
		if errors.Is(err, history.ErrNoRecord) {
			continue // a number never recorded (its loop died first)
		}
		if err != nil {
			if damaged == 0 {
				damaged = n
			}
			continue // damaged: between two of the run's records it changes nothing
		}
		if rec.Run != run {
			break
		}
		first, damaged = n, 0
	}
	if first == 0 {
		return 0, withHint(fmt.Errorf("the last run (%s) has no recorded iteration", run), "'git ralph history' lists the iterations; roll back to one by number")
	}
	if damaged != 0 {
		// it may have been the run's first: going back less far than asked is no answer
		return 0, withHint(fmt.Errorf("the record of iteration %d cannot be read, so where the last run (%s) began is unknown: iteration %d or earlier", damaged, run, first),
			"'git ralph history' names the damaged record; roll back by number ('git ralph rollback %d' goes to before iteration %d)", first, first)
	}
	return first, nil
}

// checkpointBefore is the checkpoint taken when iteration n started: the commit HEAD was
// on ("" on a branch with no commit yet) and the work tree. A history without the tree's
// ref falls back to the commit's tree.
func checkpointBefore(ctx context.Context, root string, store *history.Store, n int, s Streams) (gitops.Checkpoint, error) {
	commit, err := commitBefore(ctx, root, store, n)
	if err != nil {
		return gitops.Checkpoint{}, err
	}
	treeRef, err := loop.CheckpointRef(ctx, root, n, "before-tree")
	if err != nil {
		return gitops.Checkpoint{}, err
	}
	tree, err := gitops.ResolveRef(ctx, root, treeRef+"^{tree}")
	switch {
	case err != nil || tree != "":
		return gitops.Checkpoint{Head: commit, Tree: tree}, err
	case commit == "":
		return gitops.Checkpoint{}, withHint(fmt.Errorf("iteration %d started on a branch with no commit yet, and its work tree (%s) is missing: there is nothing to go back to", n, treeRef),
			"roll back to a later iteration, or see its changes with 'git ralph history --diff %d'", n)
	}
	fmt.Fprintf(s.Stderr, "warning: the work tree before iteration %d was not kept (%s is missing): restoring the files of its commit\n", n, treeRef)
	tree, err = gitops.ResolveRef(ctx, root, commit+"^{tree}")
	return gitops.Checkpoint{Head: commit, Tree: tree}, err
}

// commitBefore is the commit HEAD was on when iteration n started, or "" when the
// iteration started on a branch with no commit yet.
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
	case err != nil || rec.CommitBefore == "" && !rec.Pruned:
		return "", err
	case rec.Pruned:
		return "", withHint(fmt.Errorf("iteration %d's checkpoint was pruned by the history's retention settings: it cannot be rolled back to", n),
			"'git ralph history' lists the iterations; those not marked pruned can be rolled back to (history_keep and history_max_size say how many are kept)")
	}
	return "", withHint(fmt.Errorf("the checkpoint %s of iteration %d is missing", ref, n),
		"its commit was %s, if git still has it: 'git reset --hard %s'", rec.CommitBefore, rec.CommitBefore)
}

// checkLosses refuses, without --force, a rollback that would overwrite or delete work
// kept nowhere else: not committed at HEAD, not as goal.kept says, and not as the work
// tree was before one of the recorded iterations. Ignored files count.
func (c *RollbackCmd) checkLosses(ctx context.Context, root string, plan gitops.Restore, goal rollbackGoal) error {
	if c.Force {
		return nil
	}
	lost, err := plan.Unkept(ctx, root, goal.kept)
	if err != nil || len(lost) == 0 {
		return err
	}
	if lost, err = keptByCheckpoints(ctx, root, plan, goal.history, lost); err != nil || len(lost) == 0 {
		return err
	}
	names := make([]string, len(lost))
	ignored := false
	for i, p := range lost {
		names[i] = printable(p)
		if plan.IsIgnored(p) {
			names[i] += " (ignored)"
			ignored = true
		}
	}
	hint := "commit or stash them first, or pass --force to keep them in a backup ref and roll back anyway"
	if ignored {
		hint = "commit, stash or move them away first (git stash leaves ignored files), or pass --force to keep them in a backup ref and roll back anyway"
	}
	return withHint(fmt.Errorf("uncommitted changes would be lost: %s", summarisePaths(names)), "%s", hint)
}

// maxCheckpointsCompared bounds how many iterations' checkpoints keptByCheckpoints reads
// (one git process each), newest first.
const maxCheckpointsCompared = 200

// keptByCheckpoints is lost less the paths whose present content a checkpoint taken
// before one of the recorded iterations keeps: after 'rollback 3' the work tree is as it
// was before iteration 3, and a further 'rollback 2' loses nothing of it (it used to need
// --force, for "uncommitted changes would be lost"). store is nil for an undo.
func keptByCheckpoints(ctx context.Context, root string, plan gitops.Restore, store *history.Store, lost []string) ([]string, error) {
	if store == nil {
		return lost, nil
	}
	last, err := store.Last()
	if err != nil {
		return lost, nil // only makes the rollback more careful
	}
	for n := last; n >= 1 && n > last-maxCheckpointsCompared && len(lost) > 0; n-- {
		ref, err := loop.CheckpointRef(ctx, root, n, "before-tree")
		if err != nil {
			return lost, nil // only makes the rollback more careful
		}
		tree, err := gitops.ResolveRef(ctx, root, ref+"^{tree}")
		if err != nil || tree == "" {
			continue // pruned, or from an older git-ralph
		}
		unkept, err := plan.Unkept(ctx, root, tree)
		if err != nil {
			return nil, err
		}
		lost = intersectPaths(lost, unkept)
	}
	return lost, nil
}

func intersectPaths(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, p := range b {
		in[p] = true
	}
	var out []string
	for _, p := range a {
		if in[p] {
			out = append(out, p)
		}
	}
	return out
}

// refuseNested refuses, even with --force, a rollback that would delete a nested git
// repository: the backup could keep only its commit, not its files, its uncommitted work
// or its history.
func refuseNested(plan gitops.Restore) error {
	if len(plan.NestedInTheWay) == 0 {
		return nil
	}
	names := make([]string, len(plan.NestedInTheWay))
	for i, p := range plan.NestedInTheWay {
		names[i] = printable(p)
	}
	return withHint(fmt.Errorf("rolling back would delete nested git repositories, which no backup can keep: %s", summarisePaths(names)),
		"move them out of the work tree first (even --force does not delete them), roll back, then put them back where they fit")
}

// summarisePaths names the first paths and counts the rest.
func summarisePaths(paths []string) string {
	const shown = 10
	if len(paths) <= shown {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:shown], ", "), len(paths)-shown)
}
