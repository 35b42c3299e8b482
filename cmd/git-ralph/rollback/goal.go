package rollback

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
)

// Goal is where a rollback goes and what it may replace without a --force.
type Goal struct {
	checkpoint gitops.Checkpoint
	what       string         // "before iteration 3", "as before the rollback kept at refs/ralph/backup/…"
	command    string         // the command, for the backup's message
	kept       string         // a tree whose contents are kept elsewhere: replacing them loses nothing
	history    *history.Store // for a rollback to an iteration: its checkpoints keep contents too
	staged     string         // for an undo: the tree the index staged before the rollback, or ""
}

// To is the goal of 'git ralph rollback TARGET': an iteration (a number or "initial",
// see ToIteration) or a named checkpoint (see ToCheckpoint). No label is a number or
// "initial" (CheckLabel), so TARGET is never ambiguous.
func To(ctx context.Context, root, target string, warn func(string)) (Goal, error) {
	if isIteration(target) {
		return ToIteration(ctx, root, target, warn)
	}
	return ToCheckpoint(ctx, root, target)
}

// ToIteration is the goal of 'git ralph rollback target': the checkpoint taken before
// iteration N, or for "initial" before the last run's first recorded iteration. warn is
// told when only part of that checkpoint is left.
func ToIteration(ctx context.Context, root, target string, warn func(string)) (Goal, error) {
	store, err := history.OpenStore(root)
	if err != nil {
		return Goal{}, err
	}
	n, err := iteration(root, store, target)
	if err != nil {
		return Goal{}, err
	}
	return beforeIteration(ctx, root, store, n, "git ralph rollback "+target, warn)
}

// ToRunStart is the goal of 'git ralph cancel --rollback': the checkpoint before the
// first recorded iteration of run, as 'rollback initial' once that run is the last.
func ToRunStart(ctx context.Context, root, run string, warn func(string)) (Goal, error) {
	store, err := history.OpenStore(root)
	if err != nil {
		return Goal{}, err
	}
	n, err := firstOfRun(store, run)
	if err != nil {
		return Goal{}, err
	}
	return beforeIteration(ctx, root, store, n, "git ralph cancel --rollback", warn)
}

func beforeIteration(ctx context.Context, root string, store *history.Store, n int, command string, warn func(string)) (Goal, error) {
	cp, err := checkpointBefore(ctx, root, store, n, warn)
	if err != nil {
		return Goal{}, err
	}
	return Goal{checkpoint: cp, what: fmt.Sprintf("before iteration %d", n),
		command: command, kept: lastIterationTree(ctx, root, store), history: store}, nil
}

// keptByIterations is what the iterations' checkpoints keep, for a goal that is not an
// iteration: the newest work tree an iteration left, and the history whose checkpoints
// keep older ones. Without a readable history there are none, which only makes the
// rollback more careful.
func keptByIterations(ctx context.Context, root string) (string, *history.Store) {
	store, err := history.OpenStore(root)
	if err != nil {
		return "", nil
	}
	return lastIterationTree(ctx, root, store), store
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

// iteration is the number target names: N itself, or for "initial" the first recorded
// iteration of the last run.
func iteration(root string, store *history.Store, target string) (int, error) {
	if target != "initial" {
		n, err := strconv.Atoi(target)
		if err != nil || n < 1 {
			return 0, hints.Wrap(fmt.Errorf("%q is not an iteration number or 'initial'", target),
				"e.g. 'git ralph rollback 3'; 'git ralph history' lists the iterations")
		}
		return n, nil
	}
	state, err := history.LoadState(root)
	if err != nil {
		return 0, err
	}
	if !state.Exists() {
		return 0, hints.Wrap(errors.New("no loop has run in this repository: nothing to roll back"), "'git ralph loop' starts one")
	}
	return firstOfRun(store, state.Run)
}

// firstOfRun walks the history down from the newest record while the records belong to
// run (runs never overlap), so it reads only that run's records.
func firstOfRun(store *history.Store, run string) (int, error) {
	numbers, err := store.Numbers()
	if err != nil {
		return 0, err
	}
	first, damaged := 0, 0 // damaged: the newest unreadable record below first
	for _, n := range numbers {
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
		return 0, hints.Wrap(fmt.Errorf("the last run (%s) has no recorded iteration", run), "'git ralph history' lists the iterations; roll back to one by number")
	}
	if damaged != 0 {
		// it may have been the run's first: going back less far than asked is no answer
		return 0, hints.Wrap(fmt.Errorf("the record of iteration %d cannot be read, so where the last run (%s) began is unknown: iteration %d or earlier", damaged, run, first),
			"'git ralph history' names the damaged record; roll back by number ('git ralph rollback %d' goes to before iteration %d)", first, first)
	}
	return first, nil
}

// checkpointBefore is the checkpoint taken when iteration n started: the commit HEAD was
// on ("" on a branch with no commit yet) and the work tree. A history without the tree's
// ref falls back to the commit's tree, and says so through warn.
func checkpointBefore(ctx context.Context, root string, store *history.Store, n int, warn func(string)) (gitops.Checkpoint, error) {
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
		return gitops.Checkpoint{}, hints.Wrap(fmt.Errorf("iteration %d started on a branch with no commit yet, and its work tree (%s) is missing: there is nothing to go back to", n, treeRef),
			"roll back to a later iteration, or see its changes with 'git ralph history --diff %d'", n)
	}
	warn(fmt.Sprintf("the work tree before iteration %d was not kept (%s is missing): restoring the files of its commit", n, treeRef))
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
		return "", hints.MissingIteration(store, n, "checkpoint "+ref)
	case err != nil || rec.CommitBefore == "" && !rec.Pruned:
		return "", err
	case rec.Pruned:
		return "", hints.Wrap(fmt.Errorf("iteration %d's checkpoint was pruned by the history's retention settings: it cannot be rolled back to", n),
			"'git ralph history' lists the iterations; those not marked pruned can be rolled back to (history_keep and history_max_size say how many are kept)")
	}
	return "", hints.Wrap(fmt.Errorf("the checkpoint %s of iteration %d is missing", ref, n),
		"its commit was %s, if git still has it: 'git reset --hard %s'", rec.CommitBefore, rec.CommitBefore)
}
