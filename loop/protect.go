package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/pathglob"
)

// guard rejects an iteration whose change touches a protected path (Config.Protect, the
// tests the agent's work is judged by): it rolls the whole change of the iteration back to
// the checkpoint taken before it, after keeping that change in a backup ref of the form
// 'git ralph rollback' writes, so that 'git ralph rollback --undo NAME' puts it back.
// What was uncommitted before the iteration (the user's own work, before the run) is in
// that checkpoint, so it is there again after the rollback.
type guard struct {
	dir      string
	patterns []string
	run      string // the run's id, unique among the repository's worktrees: backups share refs/ralph/backup/
}

// rejection is what the guard found of one iteration.
type rejection struct {
	paths  []string // the protected paths the iteration changed; none: it is clean
	backup string   // the ref that keeps the rolled-back change
	err    error    // the change could not be checked or rolled back: it may still be there
}

// guardBackupRef is where rejected changes are kept: rollback's backups, so that its --undo
// takes them.
const guardBackupRef = "refs/ralph/backup/"

// inspect compares the repository with before, the checkpoint taken before iteration
// number: the commits made since (their net change) and the work tree's uncommitted and
// untracked changes. When one touches a protected path it rolls them all back.
func (g *guard) inspect(ctx context.Context, before gitops.Checkpoint, number int) rejection {
	plan, err := gitsnap.PlanRestore(ctx, g.dir, before, history.Dir)
	if err != nil {
		return rejection{err: fmt.Errorf("checking the protected paths: %w", err)}
	}
	changed := plan.Changed
	if before.Head != "" && plan.Head != before.Head {
		committed, err := gitsnap.ChangedPaths(ctx, g.dir, before.Head, plan.Head)
		if err != nil {
			return rejection{err: fmt.Errorf("checking the protected paths: %w", err)}
		}
		changed = append(changed, committed...)
	}
	rj := rejection{paths: pathglob.Touched(g.patterns, changed)}
	if len(rj.paths) == 0 {
		return rj
	}
	rj.backup, rj.err = g.rollBack(ctx, plan, number)
	return rj
}

// rollBack keeps the present HEAD and work tree in a backup ref, then restores plan's
// target. It returns the ref.
func (g *guard) rollBack(ctx context.Context, plan gitsnap.Restore, number int) (string, error) {
	if len(plan.NestedInTheWay) > 0 {
		return "", fmt.Errorf("rolling back would delete the nested repositories %s, which no backup can keep", strings.Join(plan.NestedInTheWay, ", "))
	}
	if err := gitsnap.CheckIndexUnlocked(ctx, g.dir); err != nil {
		return "", err
	}
	ref, err := g.keep(ctx, plan, number)
	if err != nil {
		return "", err
	}
	if err := plan.Apply(ctx, g.dir, "git-ralph: protected paths"); err != nil {
		return ref, fmt.Errorf("rolling back (the change is kept at %s): %w", ref, err)
	}
	return ref, history.EnsureGitignore(g.dir)
}

// keep writes the backup of a rejected change: a commit of the work tree as the agent left
// it (plan.Present) on the commit HEAD is on, with the trailers rollback's --undo reads.
func (g *guard) keep(ctx context.Context, plan gitsnap.Restore, number int) (string, error) {
	branch, err := gitops.HeadBranch(ctx, g.dir)
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("%s-protected-%d", g.run, number)
	msg := fmt.Sprintf("git-ralph rollback backup: HEAD and work tree of iteration %d, which changed protected paths\n\n"+
		"Put back with 'git ralph rollback --undo %s'.\n\nRalph-Head: %s\nRalph-Branch: %s\nRalph-Restored: %s\n",
		number, name, plan.Head, branch, plan.Goal)
	commit, err := gitops.CommitTree(ctx, g.dir, plan.Present, plan.Head, msg)
	if err != nil {
		return "", fmt.Errorf("keeping the rejected change: %w", err)
	}
	ref := guardBackupRef + name
	if err := gitops.CreateRefs(ctx, g.dir, []gitops.Ref{{Name: ref, Hash: commit}}); err != nil {
		return "", err // never over another backup: the iteration's change stays, and the run stops
	}
	if err := gitops.CheckComplete(ctx, g.dir, commit); err != nil {
		return "", fmt.Errorf("the backup %s is incomplete, so nothing was rolled back: %w", ref, err)
	}
	return ref, nil
}

// feedback is the next prompt's word on a rejected iteration i.
func (rj rejection) feedback(i int) string {
	return fmt.Sprintf("Iteration %d changed protected paths, which the agent must not change: %s. "+
		"They are how the work is judged, so the whole change of that iteration was rolled back. "+
		"Do the work again without changing them; if a protected file looks wrong, say so in your final message instead.",
		i, strings.Join(rj.paths, ", "))
}

// reason is the iteration's outcome in words, for its record and event.
func (rj rejection) reason() string {
	return fmt.Sprintf("changed protected paths: %s (rolled back; the change is kept at %s)", strings.Join(rj.paths, ", "), rj.backup)
}

// guarded has the guard inspect iteration i, when protected paths are set, and applies
// what it found to class: a rejected iteration's outcome is protected (one interrupted or
// halted keeps its outcome: it runs again), and the next prompt names the paths. A change
// that could not be checked or rolled back stops the run. It reports whether the
// iteration's change was rolled back or the run stops.
func (r *runner) guarded(ctx context.Context, i int, it *iterationRecord, class *classification) bool {
	if r.guard == nil {
		return false
	}
	bctx, stop := bookkeeping(ctx, graceOf(r.deps.Grace), r.deps.Hurry) // an interrupt must not leave it half done
	rj := r.guard.inspect(bctx, it.before, it.number)
	stop()
	if rj.err != nil {
		class.outcome, class.reason = OutcomeProtected, "cannot check or roll back the protected paths: "+rj.err.Error()
		class.halt = halt{stop: StatusAborted, why: fmt.Sprintf("iteration %d: %s; its change may still be there: look at the work tree before running again", i, class.reason)}
		return true
	}
	if len(rj.paths) == 0 {
		return false
	}
	class.addFeedback(rj.feedback(i))
	if !class.outcome.Counts() { // it runs again: its event says interrupted or halted
		r.warn(fmt.Sprintf("iteration %d %s", i, rj.reason()))
		return true
	}
	class.outcome, class.reason = OutcomeProtected, rj.reason()
	return true
}
