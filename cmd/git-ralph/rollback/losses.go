package rollback

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
)

// checkLosses refuses a rollback that would overwrite or delete work kept nowhere else:
// not committed at HEAD, not as goal.kept says, and not as the work tree was before one
// of the recorded iterations. Ignored files count.
func checkLosses(ctx context.Context, root string, plan gitsnap.Restore, goal Goal) error {
	lost, err := plan.Unkept(ctx, root, goal.kept)
	if err != nil || len(lost) == 0 {
		return err
	}
	if lost, err = keptByCheckpoints(ctx, root, plan, goal.history, lost); err != nil || len(lost) == 0 {
		return err
	}
	if lost, err = keptByNamed(ctx, root, plan, lost); err != nil || len(lost) == 0 {
		return err
	}
	names := make([]string, len(lost))
	ignored := false
	for i, p := range lost {
		names[i] = display.Printable(p)
		if plan.IsIgnored(p) {
			names[i] += " (ignored)"
			ignored = true
		}
	}
	hint := "commit or stash them first, or pass --force to keep them in a backup ref and roll back anyway"
	if ignored {
		hint = "commit, stash or move them away first (git stash leaves ignored files), or pass --force to keep them in a backup ref and roll back anyway"
	}
	return hints.Wrap(fmt.Errorf("uncommitted changes would be lost: %s", summarisePaths(names)), "%s", hint)
}

// maxCheckpointsCompared bounds how many iterations' checkpoints keptByCheckpoints reads
// (one git process each), newest first.
const maxCheckpointsCompared = 200

// keptByCheckpoints is lost less the paths whose present content a checkpoint taken
// before one of the recorded iterations keeps: after 'rollback 3' the work tree is as it
// was before iteration 3, and a further 'rollback 2' loses nothing of it (it used to need
// --force, for "uncommitted changes would be lost"). store is nil for an undo.
func keptByCheckpoints(ctx context.Context, root string, plan gitsnap.Restore, store *history.Store, lost []string) ([]string, error) {
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

// keptByNamed is lost less the paths whose present content a named checkpoint keeps (the
// maxCheckpointsCompared newest): after 'rollback before-x', going on to another
// checkpoint or iteration loses nothing of before-x's files.
func keptByNamed(ctx context.Context, root string, plan gitsnap.Restore, lost []string) ([]string, error) {
	named, err := List(ctx, root)
	if err != nil {
		return lost, nil // only makes the rollback more careful
	}
	for i := len(named) - 1; i >= 0 && i >= len(named)-maxCheckpointsCompared && len(lost) > 0; i-- {
		unkept, err := plan.Unkept(ctx, root, named[i].Tree)
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
func refuseNested(plan gitsnap.Restore) error {
	if len(plan.NestedInTheWay) == 0 {
		return nil
	}
	names := make([]string, len(plan.NestedInTheWay))
	for i, p := range plan.NestedInTheWay {
		names[i] = display.Printable(p)
	}
	return hints.Wrap(fmt.Errorf("rolling back would delete nested git repositories, which no backup can keep: %s", summarisePaths(names)),
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
