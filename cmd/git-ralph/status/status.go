package status

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// Status is what status reports: the saved state and whether a live loop holds the
// repository's lock. Its JSON form is the state's fields plus running, lock_holder and
// elapsed_ms; with no state file, only running and lock_holder.
type Status struct {
	Running    bool    `json:"running"`
	LockHolder *Holder `json:"lock_holder"`
	*history.State
	ElapsedMS *int64 `json:"elapsed_ms,omitempty"`
	// HistoryIteration is the repository-wide number (the one 'history', 'logs N' and
	// 'rollback' take) of the iteration shown: the one in progress, or the one that was
	// running when the loop died, else the last one completed; 0 when none.
	HistoryIteration int `json:"history_iteration,omitempty"`
	// StoppedIteration is the number of the iteration that stopped the run without
	// counting (a limit, a fatal error, an interruption): it runs again on resume.
	StoppedIteration int `json:"stopped_iteration,omitempty"`
	// Leftover is the agent of a loop that died (kill -9) and that still runs.
	Leftover *LeftoverAgent `json:"leftover_agent,omitempty"`
	// SharedLimits are the usage limits the user's loops shared that last beyond now:
	// every loop of the same agent (and account) waits for them before it runs the agent.
	SharedLimits []history.SharedLimit `json:"shared_limits,omitempty"`
	// Today is what all the user's loops on this machine spent today (daily_max_cost).
	Today *Today `json:"today,omitempty"`
	// PauseRequested: `git ralph pause` asked the work tree's loop to hold, and no `git
	// ralph resume` took it back. The state's paused_at says whether the loop holds yet.
	PauseRequested bool `json:"pause_requested,omitempty"`
	// Place is which loop this is, for the commands the status names (LoopAt); its JSON
	// form adds loop (a worktree loop's name) and needs_review (why its merge does).
	Place
}

// Paused reports whether a running loop holds on a pause, starting no agent.
func (st Status) Paused() bool { return st.Running && st.State != nil && !st.PausedAt.IsZero() }

// ActiveLimits are the shared usage limits of the user that last beyond now; none when
// the user's state directory is unknown or unreadable (status only reports them).
func ActiveLimits(now time.Time) []history.SharedLimit {
	store, err := history.UserLimits()
	if err != nil {
		return nil
	}
	list, _ := store.Active(now)
	return list
}

// LeftoverAgent names the sessions (by their leaders' pids) of an agent whose loop died.
type LeftoverAgent struct {
	PIDs  []int     `json:"pids"`
	Since time.Time `json:"since,omitzero"`
}

// Holder is the loop that holds the repository's lock.
type Holder struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since,omitzero"`
}

// Leftover finds the processes still running of a run whose loop died while an agent
// ran (the state says active, no one holds the lock). They are found by the run's
// RALPH_RUN entry, so a reused pid is never taken for them.
func Leftover(state history.State) *LeftoverAgent {
	if !state.Active {
		return nil
	}
	pids := agent.Leftovers(state.Run)
	if len(pids) == 0 {
		return nil
	}
	return &LeftoverAgent{PIDs: pids, Since: state.AgentStartedAt}
}

// Read reads the status of the repository at root, whose lock file is lockPath.
func Read(ctx context.Context, root, lockPath string, now time.Time) (Status, error) {
	holder, held, err := history.ReadHolder(lockPath)
	if err != nil {
		return Status{}, err
	}
	state, err := history.LoadState(root)
	if err != nil {
		return Status{}, err
	}
	st := Status{Running: held}
	// the pause request lives beside the lock, in the work tree's git directory
	if _, asked, err := history.ReadPause(filepath.Join(filepath.Dir(lockPath), history.PauseFile)); err == nil {
		st.PauseRequested = asked
	}
	if held {
		st.LockHolder = &Holder{PID: holder.PID, Host: holder.Host, Since: holder.Since}
	}
	if state.Exists() && !held {
		st.Leftover = Leftover(state)
	}
	if state.Exists() {
		st.State = &state
		if err := st.historyNumbers(root); err != nil {
			return Status{}, err
		}
		elapsed := st.Elapsed(now).Milliseconds()
		st.ElapsedMS = &elapsed
	}
	return st, nil
}

// Elapsed is the run's age while it runs, and how long it ran once it stopped.
func (st Status) Elapsed(now time.Time) time.Duration {
	switch {
	case st.State == nil || st.StartedAt.IsZero():
		return 0
	case st.Running:
		return now.Sub(st.StartedAt)
	case st.LastIterationAt.After(st.StartedAt):
		return st.LastIterationAt.Sub(st.StartedAt)
	}
	return 0
}

// historyNumbers finds the repository-wide numbers of the iterations status names. While
// a loop runs, or after it died, that is the last number begun. A run that stopped may
// have recorded, after its last completed iteration, one that did not count (a limit or
// a fatal error halted it, Ctrl+C interrupted it): the last number is then that one's,
// and the completed iteration's is found by its run and number within the run.
func (st *Status) historyNumbers(root string) error {
	store, err := history.OpenStore(root)
	if err != nil {
		return err
	}
	last, err := store.Last()
	if err != nil || (st.Running || st.Active) && !st.Paused() {
		st.HistoryIteration = last
		return err
	}
	st.completedNumber(store, last)
	return nil
}

// completedNumber finds the number of the run's last completed iteration, searching back
// from last; and, in a run that stopped, the number of the one that stopped it. A paused
// loop holds between iterations: the one it names is its last completed too (a number
// allocated after it, for an attempt that met a usage limit, is not that one's).
func (st *Status) completedNumber(store *history.Store, last int) {
	for n := last; n >= 1 && last-n < search; n-- {
		rec, err := store.Get(n)
		if errors.Is(err, history.ErrNoRecord) {
			continue
		}
		if err != nil || rec.Run != st.Run {
			return // a damaged record is history's to report; another run's is older
		}
		if rec.RunIteration == st.Iteration && loop.Outcome(rec.Outcome).Counts() && loop.Outcome(rec.Outcome) != loop.OutcomeCrashed {
			st.HistoryIteration = n
			return
		}
		if n == last && rec.RunIteration == st.Iteration+1 && !st.Running {
			st.StoppedIteration = n
		}
	}
}

// search bounds how many records status reads back to find the last completed
// iteration's: a run's records are contiguous, and only crashed and halted ones come
// between.
const search = 100
