package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
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
	if err := gitwt.Prune(ctx, r.dir); err != nil {
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
		return r.forget(rec.Name)
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
	return r.forget(rec.Name)
}

// forget removes the bookkeeping of the discarded loop name: its record, and its merge's
// record and lock, so that a later loop of that name starts afresh (not shown as merged
// because its branch starts at the commit the old one was merged at).
func (r repo) forget(name string) error {
	merge, err := holdMerge(r.common, name)
	if err != nil {
		return err
	}
	defer merge.Release()
	if err := history.ForgetMerge(r.common, name); err != nil {
		return err
	}
	return history.RemoveWorktreeLoop(r.common, name)
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
		if left := r.scratchNote(e.Name()); left != "" {
			p.Left = append(p.Left, path+": "+left)
			continue
		}
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

// scratchNote says why prune leaves the merge queue's scratch worktree .merge-NAME alone
// ("" when entry is no scratch of a merge to name): a running merge builds in it, and one
// whose merge died is the queue's to remove (the command runs its recovery first, which
// leaves it only while another merge holds the queue).
func (r repo) scratchNote(entry string) string {
	name, ok := strings.CutPrefix(entry, ".merge-")
	if !ok || CheckName(name) != nil {
		return ""
	}
	if history.MergeHeld(r.common, name) {
		return "the scratch worktree of the merge of " + name + ", which runs now"
	}
	if !r.isWorktree(filepath.Join(filepath.Dir(Place(r.main.Path, name)), entry)) {
		return "" // not registered: a stray directory like any other
	}
	return "the scratch worktree an interrupted merge of " + name + " left; 'git ralph runs' removes it once no merge runs"
}
