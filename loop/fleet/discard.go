package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/history"
)

// BackupPrefix is where discard keeps the last commit of a loop's branch:
// refs/ralph/backup/discard/NAME/<UTC time>. Refs under refs/ralph/ are not pushed by
// git push's defaults, and git gc keeps what they point to.
const BackupPrefix = "refs/ralph/backup/discard/"

// Discarded is what Discard did with a loop.
type Discarded struct {
	Name   string
	Path   string // the worktree removed ("" when it was gone already)
	Commit string // the branch's last commit, kept at Backup ("" when the branch was gone)
	Backup string
	// HeadBackup keeps the worktree's HEAD when it was another commit than the branch's.
	HeadBackup string
	Removed    []string // what --force removed that no commit kept
	// Forgotten: prune forgot the loop too, so its branch comes back as a new loop's start.
	Forgotten bool
}

// Restore is the command that brings a discarded loop back: its branch restored, checked
// out again by `loop --worktree NAME`, which resumes it; once prune has forgotten the loop,
// a new loop of that name started from the kept commit.
func (d Discarded) Restore() string {
	if d.Backup == "" {
		return ""
	}
	if d.Forgotten {
		return fmt.Sprintf("git ralph loop --worktree %s --base %s", d.Name, d.Backup)
	}
	return fmt.Sprintf("git branch ralph/%s %s && git ralph loop --worktree %s", d.Name, d.Backup, d.Name)
}

// UnkeptError refuses to remove a worktree that holds files no commit keeps.
type UnkeptError struct {
	Name, Path string
	Files      []string
}

func (e *UnkeptError) Error() string {
	return fmt.Sprintf("the worktree of the loop %s (%s) holds %d path(s) no commit keeps: %s",
		e.Name, e.Path, len(e.Files), listSome(e.Files, 10))
}

// Hint says what to do about them.
func (e *UnkeptError) Hint() string {
	return "commit what you want to keep there (or move it away); --force removes them with the worktree"
}

// listSome names the first n paths, and how many more there are.
func listSome(paths []string, n int) string {
	if len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:n], ", ") + fmt.Sprintf(" and %d more", len(paths)-n)
}

// Discard removes the worktree loop name: its worktree (refused while the loop runs, and
// without force while it holds files no commit keeps) and its branch ralph/NAME, whose
// last commit it keeps under BackupPrefix first. The loop's record stays, marked
// discarded, until Prune forgets it.
func Discard(ctx context.Context, dir, name string, force bool, now time.Time) (Discarded, error) {
	if err := CheckName(name); err != nil {
		return Discarded{}, err
	}
	r, lock, err := lockedRepo(ctx, dir)
	if err != nil {
		return Discarded{}, err
	}
	defer lock.Release()
	rec, found, err := history.LoadWorktreeLoop(r.common, name)
	switch {
	case err != nil:
		return Discarded{}, err
	case !found:
		return Discarded{}, &Error{Err: fmt.Errorf("no loop named %q was started with 'git ralph loop --worktree'", name),
			Advice: "'git ralph runs' lists the loops; a worktree you made yourself goes with 'git worktree remove'"}
	}
	return r.discard(ctx, rec, force, now)
}

// lockedRepo reads dir's repository under the worktree loops' lock, which keeps `loop
// --worktree` from creating or reusing a worktree meanwhile.
func lockedRepo(ctx context.Context, dir string) (repo, *history.WorktreeLoopsLock, error) {
	r, err := readRepo(ctx, dir)
	if err != nil {
		return repo{}, nil, err
	}
	lock, err := history.LockWorktreeLoops(r.common)
	if err != nil {
		return repo{}, nil, err
	}
	if r, err = readRepo(ctx, dir); err != nil {
		lock.Release()
		return repo{}, nil, err
	}
	return r, lock, nil
}

// discard removes the loop rec's worktree and branch and marks it discarded.
func (r repo) discard(ctx context.Context, rec history.WorktreeLoop, force bool, now time.Time) (Discarded, error) {
	m := r.member(rec)
	d := Discarded{Name: rec.Name}
	switch {
	case !m.Gone && samePath(m.Path, r.main.Path):
		return d, &Error{Err: fmt.Errorf("the branch ralph/%s is checked out in the main work tree", rec.Name),
			Advice: "check out another branch there first"}
	case !m.Gone && samePath(m.Path, r.dir):
		return d, &Error{Err: fmt.Errorf("this command runs inside the worktree of the loop %s, which it would remove", rec.Name),
			Advice: "run it from the main work tree: git -C " + r.main.Path + " ralph discard " + rec.Name}
	}
	merge, err := holdMerge(r.common, rec.Name)
	if err != nil {
		return d, err
	}
	defer merge.Release()
	tip, err := gitops.ResolveRef(ctx, r.dir, rec.Branch)
	if err != nil {
		return d, err
	}
	keep := func() error { return r.keepCommits(ctx, &rec, &d, tip, r.headAt(m.Path, rec.Path), now) }
	if !m.Gone {
		removed, err := r.removeTree(ctx, m, force, keep)
		if err != nil {
			return d, err
		}
		d.Path, d.Removed = m.Path, removed
	} else if err := keep(); err != nil {
		return d, err
	} else if err := gitwt.Prune(ctx, r.dir); err != nil {
		return d, err
	}
	if tip != "" {
		if err := gitwt.DeleteBranch(ctx, r.dir, rec.Branch, tip); err != nil {
			return d, err
		}
	}
	rec.DiscardedAt = now.UTC()
	removeIfEmpty(filepath.Dir(Place(r.main.Path, rec.Name)))
	if err := history.SaveWorktreeLoop(r.common, rec); err != nil {
		return d, err
	}
	// its merge (merged, needs-review) was of a branch that is gone: runs shows discarded
	return d, history.RemoveMerge(r.common, rec.Name)
}

// holdMerge takes the lock of the loop name's merge, refusing while a `git ralph merge` of
// it is queued or running: discarding would take the branch away from under it.
func holdMerge(common, name string) (*history.FileLock, error) {
	lock, err := history.HoldMerge(common, name)
	if errors.Is(err, history.ErrMergePending) {
		return nil, &Error{Err: fmt.Errorf("a merge of the loop %s runs (queued or merging)", name),
			Advice: "wait for it to end ('git ralph runs' shows its state), or stop that 'git ralph merge' (Ctrl+C), then discard"}
	}
	return lock, err
}

// removeTree removes the worktree of m after the checks that keep a user's work: no loop
// runs there (its lock is held while the worktree goes), nothing uncommitted, untracked or
// ignored outside .ralph/ unless force. A path that became a symlink is never followed:
// force removes the link alone.
func (r repo) removeTree(ctx context.Context, m Member, force bool, keep func() error) ([]string, error) {
	info, err := os.Lstat(m.Path)
	if err != nil {
		return nil, fmt.Errorf("checking the worktree %s: %w", m.Path, err)
	}
	if !info.IsDir() {
		if !force {
			return nil, &Error{Err: fmt.Errorf("the worktree %s of the loop %s is not a directory (a symlink or a file took its place)", m.Path, m.Name),
				Advice: "move it away yourself, or run with --force, which removes the link or file itself and never what a link points to"}
		}
		if err := keep(); err != nil {
			return nil, err
		}
		if err := os.Remove(m.Path); err != nil {
			return nil, fmt.Errorf("removing %s: %w", m.Path, err)
		}
		return []string{m.Path}, gitwt.Prune(ctx, r.dir)
	}
	lock, err := lockLoop(ctx, m)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	unkept, err := gitsnap.Unkept(ctx, m.Path, ralphsOwn)
	if err != nil {
		return nil, err
	}
	if len(unkept) > 0 && !force {
		return nil, &UnkeptError{Name: m.Name, Path: m.Path, Files: unkept}
	}
	if err := keep(); err != nil {
		return nil, err
	}
	return unkept, gitwt.Remove(ctx, r.dir, m.Path)
}

// ralphsOwn reports whether path (relative to a work tree, with /) is one of the files
// git-ralph writes in .ralph/: everything there but config.toml, which a user writes.
func ralphsOwn(path string) bool {
	rest, ok := strings.CutPrefix(path, history.Dir+"/")
	return ok && rest != "config.toml"
}

// lockLoop takes the single-instance lock of the loop m, refusing while the loop runs.
func lockLoop(ctx context.Context, m Member) (*history.Lock, error) {
	path, err := gitops.GitPath(ctx, m.Path, history.LockFile)
	if err != nil {
		return nil, err
	}
	lock, err := history.Acquire(path, history.ThisProcess(time.Now()))
	if errors.Is(err, history.ErrLocked) {
		return nil, &Error{Err: fmt.Errorf("the loop %s runs: %w", m.Name, err),
			Advice: fmt.Sprintf("stop it first ('git ralph cancel --loop %s'), then discard it", m.Name)}
	}
	return lock, err
}

// keepCommits keeps, before anything goes, the branch's last commit (tip) and the
// worktree's HEAD when it is another commit (the agent or the user detached it and
// committed there: removing the worktree would leave those commits to gc).
func (r repo) keepCommits(ctx context.Context, rec *history.WorktreeLoop, d *Discarded, tip, head string, now time.Time) error {
	first := tip
	if first == "" {
		first = head // the branch is gone: the worktree's HEAD is what is left
	}
	if first == "" {
		return nil
	}
	ref, err := r.keep(ctx, rec, first, now)
	if err != nil {
		return err
	}
	d.Backup, d.Commit = ref, first
	if head == "" || head == first {
		return nil
	}
	d.HeadBackup = ref + "-head"
	return gitops.CreateRefs(ctx, r.dir, []gitops.Ref{{Name: d.HeadBackup, Hash: head}})
}

// headAt is the commit checked out in the work tree at path (or at the loop's recorded
// path), as git lists it, a work tree whose directory is gone included; "" when none.
func (r repo) headAt(paths ...string) string {
	for _, wt := range r.worktrees[1:] {
		for _, p := range paths {
			if p != "" && filepath.Clean(wt.Path) == filepath.Clean(p) && strings.Trim(wt.Head, "0") != "" {
				return wt.Head // all zeros: a branch with no commit yet
			}
		}
	}
	return ""
}

// keep writes the backup ref of the loop's last commit, or reuses the one an earlier
// discard of the same commit wrote (it was interrupted before it ended), and records it.
func (r repo) keep(ctx context.Context, rec *history.WorktreeLoop, tip string, now time.Time) (string, error) {
	if rec.Backup != "" {
		if h, err := gitops.ResolveRef(ctx, r.dir, rec.Backup); err == nil && h == tip {
			return rec.Backup, nil
		}
	}
	ref, err := freeBackup(ctx, r.dir, rec.Name, now)
	if err != nil {
		return "", err
	}
	if err := gitops.CreateRefs(ctx, r.dir, []gitops.Ref{{Name: ref, Hash: tip}}); err != nil {
		return "", err
	}
	rec.Backup = ref
	return ref, history.SaveWorktreeLoop(r.common, *rec)
}

// freeBackup is a backup ref name for the loop name not taken yet: the UTC time, with
// -2, -3 … when a discard in the same second took it.
func freeBackup(ctx context.Context, dir, name string, now time.Time) (string, error) {
	base := BackupPrefix + name + "/" + now.UTC().Format("20060102T150405Z")
	for i := 1; i <= 100; i++ {
		ref := base
		if i > 1 {
			ref += "-" + strconv.Itoa(i)
		}
		h, err := gitops.ResolveRef(ctx, dir, ref)
		if err != nil || h == "" {
			return ref, err
		}
	}
	return "", fmt.Errorf("no free backup ref name under %s", base)
}

// removeIfEmpty removes the directory of the loops' worktrees once the last one is gone.
// os.Remove takes only an empty directory: one that holds anything stays.
func removeIfEmpty(dir string) {
	os.Remove(dir)
}
