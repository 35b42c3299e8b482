package status

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history"
)

// Load reads the status of the work tree root with the user's shared limits and
// today's spend: files only, cheap enough to repeat every second.
func Load(ctx context.Context, root, path string) (Status, error) {
	st, err := Read(ctx, root, path, time.Now())
	if err != nil {
		return st, err
	}
	st.SharedLimits = ActiveLimits(time.Now())
	if st.State != nil {
		st.Today = ReadToday(time.Now(), st.DailyMaxCost)
	} else {
		st.Today = ReadToday(time.Now(), 0)
	}
	return st, nil
}

// Print prints the status as "name: value" lines.
func Print(w io.Writer, st Status, now time.Time) error {
	if st.State == nil && !st.Running {
		start := st.Place.StartCommand()
		if st.PauseRequested {
			_, err := fmt.Fprintf(w, "no loop has run in this repository; a pause is asked: the next '%s' starts paused until 'git ralph resume'\n", start)
			return err
		}
		_, err := fmt.Fprintf(w, "no loop has run in this repository; start one with '%s'\n", start)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	field := func(name, format string, args ...any) {
		// the state file is in the work tree, and last_error holds the agent's words
		fmt.Fprintf(tw, "%s:\t%s\n", name, display.Printable(fmt.Sprintf(format, args...)))
	}
	field("status", "%s", Summary(st))
	if st.State == nil {
		return tw.Flush()
	}
	field("mode", "%s", display.OrDash(st.Mode))
	if st.Task != "" {
		field("task", "%s", display.ShortTask(st.Task))
	}
	if st.Template != "" {
		field("template", "%s", st.Template)
	}
	field("run", "%s", display.OrDash(st.Run))
	field("iteration", "%s", statusIteration(st))
	field("errors", "%d in a row, %d in total", st.ConsecutiveErrors, st.ErrorCount)
	field("idle iterations", "%d", st.IdleIterations)
	if st.LastError != "" {
		field("last error", "%s", st.LastError)
	}
	field("last commit", "%s", display.OrDash(display.ShortHash(st.LastCommit)))
	if !st.StartedAt.IsZero() {
		field("started", "%s (%s %s)", display.LocalTime(st.StartedAt), map[bool]string{true: "running for", false: "ran for"}[st.Running], display.Duration(st.Elapsed(now)))
	}
	if !st.WaitUntil.IsZero() && st.WaitUntil.After(now) && st.LimitFrom != "" {
		field("waiting until", "%s (usage limit the loop in %s met, %s from now)", display.LocalTime(st.WaitUntil), st.LimitFrom, display.Duration(st.WaitUntil.Sub(now)))
	} else if !st.WaitUntil.IsZero() && st.WaitUntil.After(now) {
		field("waiting until", "%s (rate limit, %s from now)", display.LocalTime(st.WaitUntil), display.Duration(st.WaitUntil.Sub(now)))
	}
	for _, l := range st.SharedLimits {
		field("shared limit", "%s", LimitLine(l, now))
	}
	if sp := RunSpend(st.State); sp != nil {
		field("spend", "%s", sp.Line())
	}
	if st.Today != nil {
		field("today", "%s", st.Today.Line())
	}
	return tw.Flush()
}

// Summary says whether a loop runs and, if not, how the last run ended and what the next
// 'git ralph loop' will do.
func Summary(st Status) string {
	if st.Running {
		h := st.LockHolder
		running := fmt.Sprintf("(pid %d on host %s since %s)", h.PID, h.Host, display.LocalTime(h.Since))
		switch {
		case st.Paused():
			return fmt.Sprintf("paused since %s, starting no agent %s; 'git ralph resume' goes on", display.LocalTime(st.PausedAt), running)
		case st.PauseRequested:
			return "running " + running + "; pausing once its current iteration is recorded ('git ralph resume' takes it back)"
		}
		return "running " + running
	}
	if st.PauseRequested {
		return notRunning(st) + fmt.Sprintf("; a pause is asked: the next '%s' starts paused until 'git ralph resume'", st.Place.StartCommand())
	}
	return notRunning(st)
}

// notRunning says how the last run ended and what the next 'git ralph loop' will do; a
// worktree loop whose merge needs review says so first, and what takes it up.
func notRunning(st Status) string {
	start := st.Place.StartCommand()
	if st.State == nil { // the views ask before any loop ran (Print says it its own way)
		return fmt.Sprintf("not running: no loop has run here yet; '%s' starts one", start)
	}
	if st.Leftover != nil {
		return fmt.Sprintf("not running: the loop (pid %d) died, but its agent still runs (pid %s since %s); 'git ralph cancel' stops it",
			st.PID, JoinPIDs(st.Leftover.PIDs), display.LocalTime(st.Leftover.Since))
	}
	if st.Active {
		return fmt.Sprintf("not running: the last run was interrupted or crashed without stopping cleanly; '%s' resumes it at iteration %d", start, st.Iteration+1)
	}
	ended := fmt.Sprintf("the last run stopped (%s, exit %d)", display.OrDash(string(st.StopReason)), st.ExitCode)
	next := fmt.Sprintf("'%s' resumes it at iteration %d", start, st.Iteration+1)
	if st.StopReason.Finished() {
		next = fmt.Sprintf("'%s' starts a new run", start)
	}
	if st.Place.Review != "" {
		return fmt.Sprintf("needs review (%s): %s and its merge did not land; 'git ralph merge %s --resolve' takes it up, or %s",
			st.Place.Review, ended, st.Place.Name, next)
	}
	return "not running: " + ended + "; " + next
}

// statusIteration is i/N: the one in progress while a loop runs, else the last completed
// (a paused loop holds between two iterations); then the number the history knows it by.
func statusIteration(st Status) string {
	i, note := st.Iteration, "completed"
	switch {
	case st.Paused() && i == 0:
		note = "paused before the first: its agent waits for 'git ralph resume'"
	case st.Paused():
		note = "completed; paused before the next: its agent waits for 'git ralph resume'"
	case st.Running:
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

// JoinPIDs writes pids as "1, 2, 3".
func JoinPIDs(pids []int) string {
	s := make([]string, len(pids))
	for i, pid := range pids {
		s[i] = strconv.Itoa(pid)
	}
	return strings.Join(s, ", ")
}

// LimitLine describes a usage limit one of the user's loops shared: whose agent and
// account, until when, which loop met it, in the agent's words.
func LimitLine(l history.SharedLimit, now time.Time) string {
	agent := l.Agent
	if l.Account != "" {
		agent += " (" + l.Account + ")"
	}
	return fmt.Sprintf("%s until %s (%s from now), met by the loop in %s: %s", agent, display.LocalTime(l.Until),
		display.Duration(l.Until.Sub(now)), l.From, strings.Join(strings.Fields(l.Message), " "))
}
