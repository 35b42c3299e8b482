package rollback

import (
	"context"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/history"
)

// Done is what a rollback did, for the command to report.
type Done struct {
	Plan       gitsnap.Restore // what it restored, from what to what
	What       string          // where it went: "before iteration 3", "as before the rollback kept at …"
	BackupRef  string          // the ref that keeps the previous HEAD and work tree
	BackupName string          // its short name, which --undo takes
	StagedKept bool            // the index staged more than HEAD, and the backup keeps it
	Restaged   bool            // an undo staged again what the index staged before the rollback
}

// Apply brings the branch, the index and the work tree to goal, after keeping everything
// it overwrites or deletes in a backup ref. Without force it refuses to overwrite or delete
// work kept nowhere else; it never deletes a nested repository. The caller holds the
// repository's lock, so no loop runs under it.
func Apply(ctx context.Context, root string, goal Goal, force bool, now time.Time) (Done, error) {
	plan, err := gitsnap.PlanRestore(ctx, root, goal.checkpoint, history.Dir)
	if err != nil {
		return Done{}, err
	}
	if err := refuseNested(plan); err != nil {
		return Done{}, err
	}
	if !force {
		if err := checkLosses(ctx, root, plan, goal); err != nil {
			return Done{}, err
		}
	}
	if err := gitsnap.CheckIndexUnlocked(ctx, root); err != nil {
		return Done{}, hints.Wrap(err, "wait for that git command to end and roll back again; if none runs, a crashed one left the lock: remove the file")
	}
	b, err := writeBackup(ctx, root, plan, goal, now)
	if err != nil {
		return Done{}, err
	}
	if err := plan.Apply(ctx, root, "git-ralph rollback"); err != nil {
		return Done{}, hints.Wrap(err, "what was there is kept at %s; 'git ralph rollback --undo %s' puts it back", b.ref, b.name)
	}
	if goal.staged != "" {
		if err := gitsnap.StageTree(ctx, root, goal.staged); err != nil {
			return Done{}, hints.Wrap(err, "the files are back; what was staged is the tree %s ('git read-tree %s' stages it)", goal.staged, goal.staged)
		}
	}
	if err := history.EnsureGitignore(root); err != nil { // the target may predate .ralph/.gitignore
		return Done{}, hints.Wrap(err, "the files are back; what was there is kept at %s ('git ralph rollback --undo %s' puts it back)", b.ref, b.name)
	}
	return Done{Plan: plan, What: goal.what, BackupRef: b.ref, BackupName: b.name,
		StagedKept: b.staged, Restaged: goal.staged != ""}, nil
}
