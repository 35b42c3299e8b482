package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// StatusCmd is `git ralph status`.
type StatusCmd struct {
	JSON bool `name:"json" help:"Print the status as one JSON object."`
}

// loopStatus is what status reports: the saved state and whether a live loop holds the
// repository's lock. Its JSON form is the state's fields plus running, lock_holder and
// elapsed_ms; with no state file, only running and lock_holder.
type loopStatus struct {
	Running    bool        `json:"running"`
	LockHolder *holderJSON `json:"lock_holder"`
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
	Leftover *leftoverJSON `json:"leftover_agent,omitempty"`
}

// leftoverJSON names the sessions (by their leaders' pids) of an agent whose loop died.
type leftoverJSON struct {
	PIDs  []int     `json:"pids"`
	Since time.Time `json:"since,omitzero"`
}

// leftoverAgent finds the processes still running of a run whose loop died while an agent
// ran (the state says active, no one holds the lock). They are found by the run's
// RALPH_RUN entry, so a reused pid is never taken for them.
func leftoverAgent(state history.State) *leftoverJSON {
	if !state.Active {
		return nil
	}
	pids := agent.Leftovers(state.Run)
	if len(pids) == 0 {
		return nil
	}
	return &leftoverJSON{PIDs: pids, Since: state.AgentStartedAt}
}

type holderJSON struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since,omitzero"`
}

// Run reads the state and the lock and prints them.
func (c *StatusCmd) Run(ctx context.Context, s Streams) error {
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	st, err := readStatus(ctx, root, time.Now())
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(s.Stdout, st)
	}
	return st.print(s.Stdout, time.Now())
}

func readStatus(ctx context.Context, root string, now time.Time) (loopStatus, error) {
	path, err := lockPath(ctx, root)
	if err != nil {
		return loopStatus{}, err
	}
	holder, held, err := history.ReadHolder(path)
	if err != nil {
		return loopStatus{}, err
	}
	state, err := history.LoadState(root)
	if err != nil {
		return loopStatus{}, err
	}
	st := loopStatus{Running: held}
	if held {
		st.LockHolder = &holderJSON{PID: holder.PID, Host: holder.Host, Since: holder.Since}
	}
	if state.Exists() && !held {
		st.Leftover = leftoverAgent(state)
	}
	if state.Exists() {
		st.State = &state
		if err := st.historyNumbers(root); err != nil {
			return loopStatus{}, err
		}
		elapsed := st.elapsed(now).Milliseconds()
		st.ElapsedMS = &elapsed
	}
	return st, nil
}

// elapsed is the run's age while it runs, and how long it ran once it stopped.
func (st loopStatus) elapsed(now time.Time) time.Duration {
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

func (st loopStatus) print(w io.Writer, now time.Time) error {
	if st.State == nil && !st.Running {
		_, err := fmt.Fprintln(w, "no loop has run in this repository; start one with 'git ralph loop'")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	field := func(name, format string, args ...any) {
		// the state file is in the work tree, and last_error holds the agent's words
		fmt.Fprintf(tw, "%s:\t%s\n", name, printable(fmt.Sprintf(format, args...)))
	}
	field("status", "%s", st.summary())
	if st.State == nil {
		return tw.Flush()
	}
	field("mode", "%s", orDash(st.Mode))
	field("run", "%s", orDash(st.Run))
	field("iteration", "%s", st.iterationText())
	field("errors", "%d in a row, %d in total", st.ConsecutiveErrors, st.ErrorCount)
	field("idle iterations", "%d", st.IdleIterations)
	if st.LastError != "" {
		field("last error", "%s", st.LastError)
	}
	field("last commit", "%s", orDash(shortHash(st.LastCommit)))
	if !st.StartedAt.IsZero() {
		field("started", "%s (%s %s)", localTime(st.StartedAt), map[bool]string{true: "running for", false: "ran for"}[st.Running], formatDuration(st.elapsed(now)))
	}
	if !st.WaitUntil.IsZero() && st.WaitUntil.After(now) {
		field("waiting until", "%s (rate limit, %s from now)", localTime(st.WaitUntil), formatDuration(st.WaitUntil.Sub(now)))
	}
	return tw.Flush()
}

// summary says whether a loop runs and, if not, how the last run ended and what the next
// 'git ralph loop' will do.
func (st loopStatus) summary() string {
	if st.Running {
		h := st.LockHolder
		return fmt.Sprintf("running (pid %d on host %s since %s)", h.PID, h.Host, localTime(h.Since))
	}
	if st.Leftover != nil {
		return fmt.Sprintf("not running: the loop (pid %d) died, but its agent still runs (pid %s since %s); 'git ralph cancel' stops it",
			st.PID, joinPIDs(st.Leftover.PIDs), localTime(st.Leftover.Since))
	}
	if st.Active {
		return fmt.Sprintf("not running: the last run was interrupted or crashed without stopping cleanly; 'git ralph loop' resumes it at iteration %d", st.Iteration+1)
	}
	ended := fmt.Sprintf("not running: the last run stopped (%s, exit %d)", orDash(string(st.StopReason)), st.ExitCode)
	if st.StopReason.Finished() {
		return ended + "; 'git ralph loop' starts a new run"
	}
	return fmt.Sprintf("%s; 'git ralph loop' resumes it at iteration %d", ended, st.Iteration+1)
}

// iterationText is i/N: the one in progress while a loop runs, else the last completed;
// then the number the history knows it by.
func (st loopStatus) iterationText() string {
	i, note := st.Iteration, "completed"
	if st.Running {
		i, note = st.Iteration+1, "in progress"
	}
	text := fmt.Sprintf("%d/%d in this run (%s)", i, st.MaxIterations, note)
	if st.MaxIterations == 0 {
		text = fmt.Sprintf("%d of unlimited in this run (%s)", i, note)
	}
	switch {
	case st.HistoryIteration == 0:
	case !st.Running && st.Active: // the loop died: the last number begun never completed
		text += fmt.Sprintf("; the one that was running is number %d for history, logs and rollback", st.HistoryIteration)
	default:
		text += fmt.Sprintf("; number %d for history, logs and rollback", st.HistoryIteration)
	}
	if st.StoppedIteration != 0 {
		text += fmt.Sprintf("; the one that stopped the run is number %d and runs again on resume", st.StoppedIteration)
	}
	return text
}

// historyNumbers finds the repository-wide numbers of the iterations status names. While
// a loop runs, or after it died, that is the last number begun. A run that stopped may
// have recorded, after its last completed iteration, one that did not count (a limit or
// a fatal error halted it, Ctrl+C interrupted it): the last number is then that one's,
// and the completed iteration's is found by its run and number within the run.
func (st *loopStatus) historyNumbers(root string) error {
	store, err := history.OpenStore(root)
	if err != nil {
		return err
	}
	last, err := store.Last()
	if err != nil || st.Running || st.Active {
		st.HistoryIteration = last
		return err
	}
	for n := last; n >= 1 && last-n < statusSearch; n-- {
		rec, err := store.Get(n)
		if errors.Is(err, history.ErrNoRecord) {
			continue
		}
		if err != nil || rec.Run != st.Run {
			return nil // a damaged record is history's to report; another run's is older
		}
		if rec.RunIteration == st.Iteration && loop.Outcome(rec.Outcome).Counts() && loop.Outcome(rec.Outcome) != loop.OutcomeCrashed {
			st.HistoryIteration = n
			return nil
		}
		if n == last && rec.RunIteration == st.Iteration+1 {
			st.StoppedIteration = n
		}
	}
	return nil
}

// statusSearch bounds how many records status reads back to find the last completed
// iteration's: a run's records are contiguous, and only crashed and halted ones come
// between.
const statusSearch = 100

func localTime(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return t.Local().Format(time.DateTime)
}

// joinPIDs writes pids as "1, 2, 3".
func joinPIDs(pids []int) string {
	s := make([]string, len(pids))
	for i, pid := range pids {
		s[i] = strconv.Itoa(pid)
	}
	return strings.Join(s, ", ")
}
