package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// Pruned is what Prune did, and what it left alone with the reason.
type Pruned struct {
	Forgotten []string    // discarded loops whose bookkeeping went
	Discarded []Discarded // loops whose worktree or branch was gone, discarded and forgotten now
	Removed   []string    // what --force removed from the worktrees' directory that no loop owned
	Left      []string    // what was left alone, each with why
	Refused   []error     // loops that could not be pruned (they run, they hold unkept files)
}

// Prune removes the loops that are gone: discarded ones are forgotten; a loop whose
// worktree directory was deleted is discarded (its branch kept under BackupPrefix) and
// forgotten; a loop whose branch was deleted loses its worktree, with the checks discard
// makes (not while it runs, nothing unkept without force). What sits in the worktrees'
// directory without being a loop's worktree is removed only with force, and a symlink
// there only as a link.
func Prune(ctx context.Context, dir string, force bool, now time.Time) (Pruned, error) {
	r, lock, err := lockedRepo(ctx, dir)
	if err != nil {
		return Pruned{}, err
	}
	defer lock.Release()
	if err := gitops.PruneWorktrees(ctx, r.dir); err != nil {
		return Pruned{}, err
	}
	if r, err = readRepo(ctx, dir); err != nil {
		return Pruned{}, err
	}
	loops, _, err := history.WorktreeLoops(r.common) // a file that cannot be read is runs' to report
	if err != nil {
		return Pruned{}, err
	}
	var p Pruned
	for _, rec := range loops {
		if CheckName(rec.Name) != nil {
			continue
		}
		if err := r.pruneLoop(ctx, rec, force, now, &p); err != nil {
			p.Refused = append(p.Refused, err)
		}
	}
	r.pruneStrays(force, &p)
	removeIfEmpty(filepath.Dir(Place(r.main.Path, "x")))
	return p, nil
}

// pruneLoop prunes the loop rec if it is gone, and leaves a live one alone.
func (r repo) pruneLoop(ctx context.Context, rec history.WorktreeLoop, force bool, now time.Time, p *Pruned) error {
	m := r.member(rec)
	tip, err := gitops.ResolveRef(ctx, r.dir, rec.Branch)
	if err != nil {
		return err
	}
	switch {
	case !rec.DiscardedAt.IsZero() && m.Gone && tip == "":
		p.Forgotten = append(p.Forgotten, rec.Name)
		return history.DeleteWorktreeLoop(r.common, rec.Name)
	case !rec.DiscardedAt.IsZero():
		p.Left = append(p.Left, fmt.Sprintf("%s: discarded, but its branch ralph/%s is back; 'git ralph loop --worktree %s' resumes it, 'git ralph discard %s' discards it again", rec.Name, rec.Name, rec.Name, rec.Name))
		return nil
	case m.Gone:
	case tip != "":
		return nil // alive
	case m.Branch != "" && m.Branch != rec.Branch:
		p.Left = append(p.Left, fmt.Sprintf("%s: its branch is gone, and its worktree %s is on your branch %s; 'git worktree remove' removes it", rec.Name, m.Path, orDetached(m.Branch)))
		return nil
	}
	d, err := r.discard(ctx, rec, force, now)
	if err != nil {
		return err
	}
	d.Forgotten = true
	p.Discarded = append(p.Discarded, d)
	return history.DeleteWorktreeLoop(r.common, rec.Name)
}

// pruneStrays deals with what sits in the worktrees' directory and is no loop's worktree
// nor any worktree of the repository: left alone, or with force removed (a symlink as a
// link only, never what it points to).
func (r repo) pruneStrays(force bool, p *Pruned) {
	place := filepath.Dir(Place(r.main.Path, "x"))
	entries, err := os.ReadDir(place)
	if err != nil {
		return
	}
	for _, e := range entries {
		path := filepath.Join(place, e.Name())
		if r.isWorktree(path) {
			continue
		}
		if !force {
			p.Left = append(p.Left, fmt.Sprintf("%s: not a worktree of this repository, left alone (--force removes it)", path))
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			p.Refused = append(p.Refused, fmt.Errorf("removing %s: %w", path, err))
			continue
		}
		p.Removed = append(p.Removed, path)
	}
}

// isWorktree reports whether path is one of the repository's work trees as git lists them.
func (r repo) isWorktree(path string) bool {
	for _, wt := range r.worktrees {
		if filepath.Clean(wt.Path) == filepath.Clean(path) {
			return true
		}
	}
	return false
}
