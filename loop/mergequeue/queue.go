package mergequeue

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// Request is one `git ralph merge NAME`.
type Request struct {
	Name            string // the worktree loop whose branch is merged
	How             string // gitmerge.HowMerge, HowSquash or HowRebase
	Validate        string // the command the merged result must pass; "" for none
	ValidateTimeout time.Duration
	// Say is told what the queue does while it works (waiting, validating); optional.
	Say func(string)
}

// Outcome is what became of a merge: its final record (State merged or needs-review),
// whether it was a fast-forward or already done, and what happened to the work trees
// that have the base branch checked out.
type Outcome struct {
	history.Merge
	FastForward   bool
	AlreadyMerged bool
	Checkouts     []Checkout
	Notes         []string // interrupted merges of earlier commands, finished or undone
}

// Checkout is a work tree with the base branch checked out, and whether its files followed.
type Checkout struct {
	Path    string
	Updated bool
	Problem string   // why it could not follow
	Paths   []string // the paths of its changes in the way, when git named them
}

// attempts bounds the rebuilds when the base branch keeps moving while a merge is built.
const attempts = 3

// Error is an error with advice on what to do, which the command prints as a hint.
type Error = fleet.Error

// Target is a worktree loop found for a merge: its repository and bookkeeping.
type Target struct {
	r    repo
	loop history.WorktreeLoop
}

// Open finds the worktree loop name of dir's repository, which must have a base branch
// to merge into.
func Open(ctx context.Context, dir, name string) (Target, error) {
	r, loop, err := open(ctx, dir, name)
	return Target{r: r, loop: loop}, err
}

// BaseBranch is the full name of the branch the loop merges into.
func (t Target) BaseBranch() string { return t.loop.BaseBranch }

// Last is the loop's last merge through the queue, if it asked for one.
func (t Target) Last() (history.Merge, bool, error) {
	return history.LoadMerge(t.r.common, t.loop.Name)
}

// MainTree is the repository's main work tree, whose configuration says how to validate.
func (t Target) MainTree() string { return t.r.main }

// Merge queues the loop's branch for its base branch, waits for its turn (one merge at a
// time per repository), and merges it: built in a scratch worktree, validated there, and
// landed by compare-and-swap on the base branch. Cancelling ctx while it waits takes it
// out of the queue; while it merges, the base stays where it was unless the swap was done.
func (t Target) Merge(ctx context.Context, req Request) (Outcome, error) {
	r, loop := t.r, t.loop
	own, err := history.HoldMerge(r.common, req.Name)
	if errors.Is(err, history.ErrMergePending) {
		return Outcome{}, &Error{Err: fmt.Errorf("a merge of %s is already queued or running", req.Name),
			Advice: "wait for it: 'git ralph runs' shows its state"}
	}
	if err != nil {
		return Outcome{}, err
	}
	defer own.Release()
	entry := history.Merge{Name: req.Name, State: history.MergeQueued, How: req.How, Validate: req.Validate,
		BaseBranch: loop.BaseBranch, RequestedAt: time.Now().UTC()}
	queue, err := takeTurn(ctx, r.common, req, entry)
	if err != nil {
		history.RemoveMerge(r.common, req.Name) // out of the queue: nothing was done
		return Outcome{}, err
	}
	defer queue.Release()
	notes := recoverLocked(ctx, r, req.Name)
	out, err := r.merge(ctx, req, loop, entry)
	out.Notes = append(notes, out.Notes...)
	return out, err
}

// takeTurn waits for the queue's lock, saying so when another merge holds it. The
// queued record is written only then, for 'runs' to show the wait: a merge whose turn
// comes at once goes straight to its building record, one file write sooner.
func takeTurn(ctx context.Context, common string, req Request, queued history.Merge) (*history.FileLock, error) {
	lock, err := history.LockMergeQueue(ctx, common, false)
	if !errors.Is(err, history.ErrLocked) {
		return lock, err
	}
	if err := history.SaveMerge(common, queued); err != nil {
		return nil, err
	}
	say(req, fmt.Sprintf("queued: another merge runs; %s waits for its turn (Ctrl+C leaves the queue)", req.Name))
	return history.LockMergeQueue(ctx, common, true)
}

func say(req Request, msg string) {
	if req.Say != nil {
		req.Say(msg)
	}
}

// repo is what a merge needs to know of the repository.
type repo struct {
	dir    string // a work tree of it, where git runs
	main   string // the main work tree
	common string // the common git directory
}

// open finds the repository of dir and the worktree loop name, which must have a base
// branch to merge into.
func open(ctx context.Context, dir, name string) (repo, history.WorktreeLoop, error) {
	if err := fleet.CheckName(name); err != nil {
		return repo{}, history.WorktreeLoop{}, err
	}
	r, err := find(ctx, dir)
	if err != nil {
		return repo{}, history.WorktreeLoop{}, err
	}
	common := r.common
	loop, found, err := history.LoadWorktreeLoop(common, name)
	switch {
	case err != nil:
		return repo{}, history.WorktreeLoop{}, err
	case !found:
		return repo{}, history.WorktreeLoop{}, &Error{Err: fmt.Errorf("no worktree loop named %q in this repository", name),
			Advice: "'git ralph runs' lists the loops; only a loop started with 'git ralph loop --worktree NAME' has a branch to merge"}
	case loop.BaseBranch == "":
		return repo{}, history.WorktreeLoop{}, &Error{Err: fmt.Errorf("the loop %s started from the commit %s, which is no branch: there is no base branch to merge into", name, short(loop.BaseCommit)),
			Advice: fmt.Sprintf("merge its branch yourself: git merge ralph/%s", name)}
	}
	return r, loop, nil
}

// find is the repository of dir: its common git directory (read from the files when dir
// is the top of a work tree) and the main work tree found from it as git finds it — no
// git process in the usual case.
func find(ctx context.Context, dir string) (repo, error) {
	common, err := gitops.TopCommonDir(ctx, dir)
	if err != nil {
		return repo{}, err
	}
	main, err := gitwt.MainPath(common)
	if err != nil {
		return repo{}, err
	}
	return repo{dir: dir, main: main, common: common}, nil
}

// scratchPath is where the merge of the loop name is built: beside the loops' worktrees,
// under a name no loop can have (a loop's name cannot start with a dot).
func (r repo) scratchPath(name string) string {
	return filepath.Join(r.scratchDir(), ".merge-"+name)
}

// scratchDir holds the scratch worktrees: the loops' worktrees' directory. Asked with a
// loop's name, never with "" (Recover has no loop of its own), which would name its parent.
func (r repo) scratchDir() string {
	return filepath.Dir(fleet.Place(r.main, "x"))
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func branchName(ref string) string { return strings.TrimPrefix(ref, "refs/heads/") }
