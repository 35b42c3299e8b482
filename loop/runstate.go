package loop

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// open reads the saved state, cleans up after a loop that died with its agent running,
// decides between resuming and a new run, and saves the run as active. It returns the
// first iteration to run.
func (r *runner) open(ctx context.Context) (int, error) {
	book, err := openLogbook(ctx, r.cfg.Dir, r.cfg.Retention, r.warn)
	if err != nil {
		return 0, err
	}
	r.book, r.state = book, &stateFile{root: r.cfg.Dir}
	saved, err := loadState(r.cfg.Dir, r.warn)
	if err != nil {
		return 0, err
	}
	stopOrphans(saved, r.deps.Grace, r.warn)
	saved = catchUp(saved, r.book.store, r.cfg.Feedback)
	removeLeftovers(ctx, r.cfg.Dir, r.warn)
	now := r.deps.Now()
	first, resumed, why := r.resumeOrStart(saved, now)
	if resumed { // the summary's timing covers the whole run
		r.res.Stats = runStats(r.book.store, r.res.Run, saved.Iteration)
	}
	r.state.activate(r.cfg, saved.AgentAccount)
	if err := r.state.save(); err != nil {
		return 0, err
	}
	if r.here, err = r.book.checkpoint(ctx); err != nil {
		if ctx.Err() != nil && !saved.Active {
			// interrupted before anything ran: the state says so, as it would a moment
			// later (a dead loop's state stays active: the next loop records its iteration)
			_ = r.close(StatusInterrupted, nil)
		}
		return 0, fmt.Errorf("reading the repository before the first iteration: %w", err)
	}
	recordCrashed(saved, r.book, r.here, r.warn)
	r.report(RunStarted{Run: r.res.Run, Mode: r.cfg.Mode, Max: r.cfg.MaxIterations, At: now,
		Resumed: resumed, First: first, Why: why})
	return first, nil
}

// activate marks the state as the running loop's, with the settings status shows.
// account is the account the agent last said it ran on: until the agent says again, it
// keys the shared limits.
func (s *stateFile) activate(cfg Config, account string) {
	s.AgentAccount = account
	s.Active, s.StopReason, s.ExitCode = true, "", 0
	s.AgentPGID, s.PID, s.Host = 0, os.Getpid(), hostname()
	s.MaxIterations = cfg.MaxIterations
	// a killed loop's: this one pauses anew if asked, and is in no iteration until it starts one
	s.PausedAt, s.InIteration = time.Time{}, false
	b := cfg.Budget
	s.MaxCost, s.MaxTokens, s.DailyMaxCost = b.MaxCost, b.MaxTokens, b.DailyMaxCost
}

// loadState reads the state file; a corrupt one has been moved aside by history and is
// reported, and the loop goes on with a new run.
func loadState(dir string, warn func(string)) (history.State, error) {
	saved, err := history.LoadState(dir)
	var corrupt *history.CorruptStateError
	if errors.As(err, &corrupt) {
		warn(corrupt.Error() + "\n" + corrupt.Hint())
		return history.State{}, nil
	}
	return saved, err
}

// stopOrphans stops the agent of a loop that died mid-iteration, before anything else
// runs in the repository. The caller holds the lock, so that loop is gone.
func stopOrphans(saved history.State, grace time.Duration, warn func(string)) {
	if !saved.Active {
		return
	}
	if stopped := agent.StopOrphans(saved.Run, saved.PID, grace); len(stopped) > 0 {
		warn(fmt.Sprintf("stopped the agent the previous loop left running (session %s)", joinInts(stopped)))
	}
}

// removeLeftovers removes the scratch index copies of snapshots that a killed loop (or
// rollback) left in the git directory. The caller holds the lock, so none is in use.
func removeLeftovers(ctx context.Context, dir string, warn func(string)) {
	if _, err := gitsnap.RemoveScratch(ctx, dir); err != nil {
		warn(err.Error())
	}
}

// resumeOrStart continues the saved run when it is unfinished and in the same mode, or
// starts a new one. It returns the first iteration and why it chose so.
func (r *runner) resumeOrStart(saved history.State, now time.Time) (int, bool, string) {
	resume, why := Resumes(r.cfg, saved)
	if resume {
		r.state.State = saved
		r.state.Agent = r.cfg.Agent.Name // this loop's, should it differ from the last one's
		r.cfg.Task = saved.Task          // the run's task, given again or not
		r.res.Run, r.res.Last = saved.Run, saved.Iteration
		r.res.Consecutive, r.idle.Idle = saved.ConsecutiveErrors, saved.IdleIterations
		return saved.Iteration + 1, true, fmt.Sprintf("resuming run %s after iteration %d", saved.Run, saved.Iteration)
	}
	r.res.Run = newRunID(now)
	r.state.State = history.State{Run: r.res.Run, Mode: r.cfg.Mode, StartedAt: now, Task: r.cfg.Task, Template: r.cfg.Template.Name,
		Agent: r.cfg.Agent.Name}
	return 1, false, why
}

// Resumes reports whether a loop with cfg continues the saved run, and otherwise why it
// starts a new one ("" for the repository's first run). A loop given no task resumes with
// the run's task; a loop given another task starts a new run with it; so with templates.
func Resumes(cfg Config, saved history.State) (bool, string) {
	switch {
	case !saved.Exists():
		return false, ""
	case cfg.Fresh:
		return false, "--fresh"
	case saved.StopReason.Finished():
		return false, fmt.Sprintf("the last run ended (%s)", saved.StopReason)
	case saved.Mode != cfg.Mode:
		return false, fmt.Sprintf("the unfinished run was in mode %s", saved.Mode)
	case cfg.Task != "" && cfg.Task != saved.Task:
		return false, "a new task was given"
	case cfg.Template.Name != "" && cfg.Template.Name != saved.Template:
		return false, "another template was given"
	}
	return true, ""
}

// saveIteration records in the state that iteration i, classified so, is over, with its
// feedback for the next prompt.
func (r *runner) saveIteration(i int, class classification, after gitops.Checkpoint) error {
	st := r.state
	if class.outcome.Counts() {
		turnFeedback(&st.State, r.cfg.Feedback, class.feedback)
		st.Iteration = i
	}
	st.LastIterationAt, st.LastCommit, st.AgentPGID, st.InIteration = r.deps.Now(), after.Head, 0, false
	st.ConsecutiveErrors, st.IdleIterations = r.res.Consecutive, r.idle.Idle
	return st.save()
}

// close marks the run stopped in the state, with why. A run that stopped on an error
// is not finished: the next loop resumes it.
func (r *runner) close(status Status, cause error) error {
	if r.state == nil {
		return nil
	}
	st := r.state
	st.Active, st.AgentPGID, st.InIteration = false, 0, false
	st.StopReason, st.ExitCode = stopReason(status), status.ExitCode()
	if cause != nil {
		st.StopReason, st.ExitCode, st.LastError = history.StopCrashed, 1, cause.Error()
	}
	return st.save()
}

func stopReason(s Status) history.StopReason {
	return map[Status]history.StopReason{StatusSuccess: history.StopSuccess, StatusMaxIters: history.StopMaxIters,
		StatusAborted: history.StopAborted, StatusIdle: history.StopIdle, StatusInterrupted: history.StopInterrupted,
		StatusLimited: history.StopLimited, StatusFatal: history.StopFatal, StatusBudget: history.StopBudget,
		StatusStagnant: history.StopStagnant}[s]
}

// newRunID names a run by its start time plus 32 random bits.
//
// The random part matters: the run id is the RALPH_RUN marker by which
// leftover agent processes are found and stopped, and loops in different repositories
// started by the same cron line begin in the same second.
func newRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails since Go 1.24
	return fmt.Sprintf("%s-%x", now.UTC().Format("20060102T150405Z"), b)
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}

// joinInts writes ids as "1, 2, 3".
func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}
