package status

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// The states of a loop in `runs`. The set is open: the merge queue adds queued, merging,
// needs-review, merged and discarded, and pausing adds paused; readers must show a state
// they do not know as it is.
const (
	StateRunning     = "running"     // a live loop holds the work tree's lock
	StateWaiting     = "waiting"     // running, and waiting for a usage limit's reset (wait_until)
	StatePaused      = "paused"      // running, and holding on 'git ralph pause' until 'git ralph resume'
	StateFinished    = "finished"    // the last run ended for good (reason: success, max-iters, aborted, idle)
	StateStopped     = "stopped"     // the last run stopped unfinished (reason: interrupted, limited, fatal); 'loop' resumes it
	StateInterrupted = "interrupted" // the loop died without stopping cleanly (kill -9, a crash); 'loop' resumes it
	StateNeverRun    = "never-run"   // no loop has run in this work tree
	StateGone        = "gone"        // the loop's worktree directory no longer exists
	StateDiscarded   = "discarded"   // 'git ralph discard' removed its worktree and branch; 'prune' forgets it
	StateUnreadable  = "unreadable"  // its state file or lock could not be read (see problem)
)

// Run is one loop of the repository as `runs` shows it; its JSON form is what `runs
// --json` prints, one object per loop.
type Run struct {
	Name          string    `json:"name"`
	Branch        string    `json:"branch"` // "" when detached
	Path          string    `json:"path"`
	State         string    `json:"state"`
	Reason        string    `json:"reason,omitempty"` // why the last run stopped
	Iteration     int       `json:"iteration"`        // in progress while running, else (paused too) the last completed, within the run
	MaxIterations int       `json:"max_iterations"`   // 0: unlimited
	LastOutcome   string    `json:"last_outcome,omitempty"`
	Validation    string    `json:"last_validation,omitempty"` // of the last recorded iteration; "" when none ran
	BaseBranch    string    `json:"base_branch,omitempty"`     // worktree loops only
	BaseCommit    string    `json:"base_commit,omitempty"`
	Ahead         *int      `json:"ahead,omitempty"` // commits of the loop's branch not in its base
	WaitUntil     time.Time `json:"wait_until,omitzero"`
	LimitFrom     string    `json:"limit_from,omitempty"` // whose limit it waits for, when another loop shared it
	PID           int       `json:"pid,omitempty"`        // of the running loop
	Look          string    `json:"look"`                 // the command that shows more
	Backup        string    `json:"backup,omitempty"`     // a discarded loop's: the ref that keeps its last commit
	Problem       string    `json:"problem,omitempty"`
	Spend         *Spend    `json:"spend,omitempty"` // the last run's spend and budgets; nil: none
}

// ReadRun reads what the loop m wrote (its state, its lock's holder, its last record)
// without taking anything a running loop needs. dir is any work tree of the repository.
func ReadRun(ctx context.Context, dir string, m fleet.Member, now time.Time) Run {
	r := Run{Name: m.Name, Branch: strings.TrimPrefix(m.Branch, "refs/heads/"), Path: m.Path, Look: "git ralph status --loop " + m.Name}
	if m.Worktree != nil {
		r.BaseBranch, r.BaseCommit = strings.TrimPrefix(m.Worktree.BaseBranch, "refs/heads/"), m.Worktree.BaseCommit
		if n, ok, err := fleet.Ahead(ctx, dir, m); ok && err == nil {
			r.Ahead = &n
		}
	}
	if m.Gone && m.Worktree != nil && !m.Worktree.DiscardedAt.IsZero() {
		r.State, r.Backup, r.Ahead = StateDiscarded, m.Worktree.Backup, nil
		r.Look = "git branch ralph/" + m.Name + " " + m.Worktree.Backup
		if r.Backup == "" { // its branch was gone already: nothing to bring back
			r.Look = "git ralph loop --worktree " + m.Name
		}
		return r
	}
	if m.Gone {
		r.State = StateGone
		r.Look = "git ralph loop --worktree " + m.Name
		return r
	}
	if err := r.readState(ctx, m.Path, now); err != nil {
		r.State, r.Problem = StateUnreadable, err.Error()
	}
	return r
}

// readState fills in the state, the iteration and the last record's outcome.
func (r *Run) readState(ctx context.Context, root string, now time.Time) error {
	lock, err := gitops.GitPath(ctx, root, history.LockFile)
	if err != nil {
		return err
	}
	st, err := Read(ctx, root, lock, now)
	if err != nil {
		return err
	}
	r.State, r.Reason = phase(st, now)
	if st.Running && st.LockHolder != nil {
		r.PID = st.LockHolder.PID
	}
	if st.State != nil {
		r.Iteration, r.MaxIterations = st.Iteration, st.MaxIterations
		r.Spend = RunSpend(st.State)
		if st.Running && !st.Paused() { // a paused loop holds between two iterations
			r.Iteration++
		}
		if r.State == StateWaiting {
			r.WaitUntil, r.LimitFrom = st.WaitUntil, st.LimitFrom
		}
	}
	r.LastOutcome, r.Validation = lastRecord(root)
	return nil
}

// phase is the state of the loop st describes, and why its last run stopped.
func phase(st Status, now time.Time) (state, reason string) {
	switch {
	case st.Paused():
		return StatePaused, ""
	case st.Running && st.State != nil && st.WaitUntil.After(now):
		return StateWaiting, ""
	case st.Running:
		return StateRunning, ""
	case st.State == nil:
		return StateNeverRun, ""
	case st.Active:
		return StateInterrupted, string(history.StopCrashed)
	case st.StopReason.Finished():
		return StateFinished, string(st.StopReason)
	}
	return StateStopped, string(st.StopReason)
}

// lastRecord is the outcome and validation of the newest iteration recorded, passing over
// the number of one still running (allocated, not yet saved).
func lastRecord(root string) (outcome, validation string) {
	store, err := history.OpenStore(root)
	if err != nil {
		return "", ""
	}
	last, err := store.Last()
	if err != nil {
		return "", ""
	}
	for n := last; n >= 1 && last-n < 3; n-- {
		rec, err := store.Get(n)
		if errors.Is(err, history.ErrNoRecord) {
			continue
		}
		if err != nil {
			return "", ""
		}
		return rec.Outcome, rec.Validation
	}
	return "", ""
}
