package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// Member is one loop of a repository: the one of the main work tree, one made by `loop
// --worktree`, or one that ran in a linked worktree the user made.
type Member struct {
	Name   string
	Path   string
	Branch string // full ref checked out there, "" when detached
	Main   bool
	// Worktree is the bookkeeping of a loop made by `loop --worktree`, nil for the others.
	Worktree *history.WorktreeLoop
	// Gone: the loop's worktree directory no longer exists (its branch may).
	Gone bool
}

// Members lists the loops of dir's repository: the main work tree's first (named
// MainName, even when no loop ever ran there), then the worktree loops by name, then the
// other linked worktrees where a loop has run, named after their directory. Bookkeeping
// files that cannot be read come back in bad, without hiding the rest.
func Members(ctx context.Context, dir string) (list []Member, bad []error, err error) {
	r, err := readRepo(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	if !r.main.Bare {
		list = append(list, Member{Name: MainName, Path: r.main.Path, Branch: r.main.Branch, Main: true})
	}
	loops, bad, err := history.WorktreeLoops(r.common)
	if err != nil {
		return nil, nil, err
	}
	taken := map[string]bool{}
	for i := range loops {
		if err := CheckName(loops[i].Name); err != nil { // a file written by hand
			bad = append(bad, fmt.Errorf("the worktree loop file %s.toml: %w", loops[i].Name, err))
			continue
		}
		m := r.member(loops[i])
		taken[filepath.Clean(m.Path)] = true
		list = append(list, m)
	}
	return append(list, r.others(taken)...), bad, nil
}

// member is the state of the worktree loop l: where its branch is checked out now, or
// else its worktree with whatever branch the agent or the user switched to there.
func (r repo) member(l history.WorktreeLoop) Member {
	m := Member{Name: l.Name, Path: l.Path, Branch: l.Branch, Worktree: &l, Gone: true}
	if wt, ok := r.checkedOut(l.Branch); ok {
		m.Path, m.Gone = wt.Path, false
		return m
	}
	for _, wt := range r.worktrees[1:] {
		if !wt.Prunable && samePath(wt.Path, l.Path) {
			m.Path, m.Branch, m.Gone = wt.Path, wt.Branch, false
		}
	}
	return m
}

// others are the linked worktrees not made by `loop --worktree` in which a loop has run
// (they have a state file), sorted by name.
func (r repo) others(taken map[string]bool) []Member {
	var list []Member
	for _, wt := range r.worktrees[1:] {
		if wt.Prunable || wt.Bare || taken[filepath.Clean(wt.Path)] || strings.HasPrefix(wt.Branch, BranchPrefix) {
			continue
		}
		if _, err := os.Lstat(history.StatePath(wt.Path)); err != nil {
			continue
		}
		list = append(list, Member{Name: filepath.Base(wt.Path), Path: wt.Path, Branch: wt.Branch})
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list
}

// Find is the loop name of dir's repository: MainName, a worktree loop, or another linked
// worktree where a loop ran, by its directory's name.
func Find(ctx context.Context, dir, name string) (Member, error) {
	list, _, err := Members(ctx, dir)
	if err != nil {
		return Member{}, err
	}
	var found []Member
	for _, m := range list {
		if m.Name == name {
			found = append(found, m)
		}
	}
	switch {
	case len(found) == 0:
		return Member{}, &Error{Err: fmt.Errorf("no loop named %q in this repository", name), Advice: "'git ralph runs' lists the loops and their names"}
	case found[0].Gone && found[0].Worktree != nil && !found[0].Worktree.DiscardedAt.IsZero():
		return Member{}, &Error{Err: fmt.Errorf("the loop %s was discarded", name),
			Advice: fmt.Sprintf("its last commit is kept at %s: 'git branch ralph/%s %s' brings its branch back, then 'git ralph loop --worktree %s' resumes it", found[0].Worktree.Backup, name, found[0].Worktree.Backup, name)}
	case found[0].Gone:
		return Member{}, &Error{Err: fmt.Errorf("the worktree of the loop %s is gone (%s)", name, found[0].Path),
			Advice: fmt.Sprintf("'git ralph loop --worktree %s' checks its branch out again", name)}
	case len(found) > 1 && found[0].Worktree == nil && !found[0].Main:
		return Member{}, &Error{Err: fmt.Errorf("%d worktrees are named %q (%s and %s)", len(found), name, found[0].Path, found[1].Path),
			Advice: "run the command inside the worktree you mean"}
	}
	return found[0], nil // a worktree loop wins over a directory of the same name
}

// Ahead is how many commits the worktree loop m has that its base has not: its base
// branch as it is now, or the commit it started from when that branch is gone. It
// reports false for a loop without a base (the main work tree's, a user's worktree).
func Ahead(ctx context.Context, dir string, m Member) (int, bool, error) {
	if m.Worktree == nil {
		return 0, false, nil
	}
	base := m.Worktree.BaseCommit
	if b := m.Worktree.BaseBranch; b != "" {
		if tip, err := gitops.ResolveRef(ctx, dir, b); err == nil && tip != "" {
			base = b
		}
	}
	tip, err := gitops.ResolveRef(ctx, dir, m.Worktree.Branch)
	if err != nil || tip == "" {
		return 0, false, err
	}
	n, err := gitops.CountAhead(ctx, dir, base, m.Worktree.Branch)
	return n, err == nil, err
}
