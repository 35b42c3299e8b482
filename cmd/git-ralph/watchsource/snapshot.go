package watchsource

import (
	"context"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/watch"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// shownIterations bounds the iterations the view lists: the run's last ones.
const shownIterations = 200

// Reader reads what the view shows, files only, every tick. What does not change
// while the view runs (which loop, its branch) is found once, with git, before; the
// records of finished iterations, which never change, are read once each.
type Reader struct {
	Root, Lock string       // the work tree and its loop's lock
	Place      status.Place // which loop lives there
	Branch     string       // its branch
	records    map[int]history.Record
}

// Snapshot reads the loop's state, its run's records and where its live output is.
func (w *Reader) Snapshot(ctx context.Context, now time.Time) (watch.Snapshot, error) {
	st, err := status.Load(ctx, w.Root, w.Lock)
	if err != nil {
		return watch.Snapshot{}, err
	}
	st.Place = w.Place
	snap := watch.Snapshot{Loop: w.Place.Name, Branch: w.Branch, Now: now, Status: status.Summary(st), State: state(st, now)}
	if snap.Loop == "" {
		snap.Loop = "main"
	}
	if st.State == nil {
		return printable(snap), nil
	}
	snap.Mode, snap.Max, snap.Iteration = st.Mode, st.MaxIterations, st.Iteration
	switch {
	case st.Task != "":
		snap.Task = "task " + display.OneLine(st.Task)
	case st.Template != "":
		snap.Task = "template " + st.Template
	}
	if st.Running && !st.Paused() {
		snap.Iteration++
	}
	if st.Running && st.InIteration && !st.AgentStartedAt.IsZero() {
		snap.Started = st.AgentStartedAt
	}
	if snap.State == watch.Waiting {
		snap.WaitUntil = st.WaitUntil
	}
	w.spend(&snap, st.State, now)
	store, err := history.OpenStore(w.Root)
	if err != nil {
		return printable(snap), nil
	}
	w.iterations(&snap, store, st)
	return printable(snap), nil
}

// state is the badge of the loop st describes.
func state(st status.Status, now time.Time) watch.State {
	switch {
	case st.Paused():
		return watch.Paused
	case st.Running && st.PauseRequested:
		return watch.Pausing
	case st.Running && st.WaitUntil.After(now):
		return watch.Waiting
	case st.Running:
		return watch.Running
	case st.Place.Review != "":
		return watch.NeedsReview
	case st.State == nil:
		return watch.NotRun
	case st.Active, st.StopReason == history.StopFatal, st.StopReason == history.StopAborted, st.StopReason == history.StopCrashed:
		return watch.Failed
	case st.StopReason.Finished():
		return watch.Done
	}
	return watch.Stopped
}

// spend is the run's spend against each of its budgets (the daily one against what all
// the user's loops spent today); a line when it has none.
func (w *Reader) spend(snap *watch.Snapshot, st *history.State, now time.Time) {
	if st.MaxCost > 0 {
		snap.Budgets = append(snap.Budgets, watch.Budget{Name: "max_cost", Used: st.SpentUSD, Limit: st.MaxCost,
			Text: display.Dollars(st.SpentUSD) + " of " + display.Dollars(st.MaxCost)})
	}
	if st.MaxTokens > 0 {
		snap.Budgets = append(snap.Budgets, watch.Budget{Name: "max_tokens", Used: float64(st.SpentTokens), Limit: float64(st.MaxTokens),
			Text: display.Count(st.SpentTokens) + " of " + display.Count(st.MaxTokens) + " tokens"})
	}
	if today := status.ReadToday(now, st.DailyMaxCost); st.DailyMaxCost > 0 && today != nil && today.Problem == "" {
		snap.Budgets = append(snap.Budgets, watch.Budget{Name: "daily_max_cost", Used: today.CostUSD, Limit: st.DailyMaxCost,
			Text: display.Dollars(today.CostUSD) + " of " + display.Dollars(st.DailyMaxCost) + " today"})
	}
	if sp := status.RunSpend(st); sp != nil && len(snap.Budgets) == 0 {
		snap.Spend = sp.Line()
	}
}

// iterations lists the run's recorded iterations (and the running one), the mean of
// their durations and the agent and model of the last.
func (w *Reader) iterations(snap *watch.Snapshot, store *history.Store, st status.Status) {
	running := st.Running && st.InIteration && st.HistoryIteration > 0
	var rows []watch.Iteration
	var total time.Duration
	last := st.HistoryIteration
	if running {
		last--
	}
	format := agentcli.Text
	for n := last; n >= 1 && len(rows) < shownIterations; n-- {
		rec, ok := w.record(store, n)
		if !ok {
			continue
		}
		if rec.Run != st.Run {
			break
		}
		if snap.Agent == "" && rec.Agent != "" {
			snap.Agent, snap.Model = rec.Agent, rec.Model
		}
		if p, ok := agentcli.Lookup(rec.Agent); ok && format == agentcli.Text {
			format = p.Format
		}
		rows = append(rows, iterationRow(store, rec))
		total += time.Duration(rec.DurationMS) * time.Millisecond
	}
	if st.State != nil && snap.Agent == "" {
		// no record of the run's yet: its state says which agent it runs
		snap.Agent = st.State.Agent
		if p, ok := agentcli.Lookup(st.State.Agent); ok {
			format = p.Format
		}
	}
	if len(rows) > 0 {
		snap.Mean = total / time.Duration(len(rows))
	}
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	for i := range rows {
		rows[i].Format = format
	}
	if running {
		rows = append(rows, watch.Iteration{N: st.HistoryIteration, Running: true, Output: store.OutputPath(st.HistoryIteration), Format: format})
	}
	snap.Iterations = rows
	if st.HistoryIteration > 0 {
		snap.Output, snap.Format = store.OutputPath(st.HistoryIteration), format
	}
}

// record reads iteration n's record, once: a saved record does not change.
func (w *Reader) record(store *history.Store, n int) (history.Record, bool) {
	if rec, ok := w.records[n]; ok {
		return rec, true
	}
	rec, err := store.Get(n)
	if err != nil {
		return history.Record{}, false
	}
	if w.records == nil {
		w.records = map[int]history.Record{}
	}
	w.records[n] = rec
	return rec, true
}

// iterationRow is a record as the iterations list shows it.
func iterationRow(store *history.Store, rec history.Record) watch.Iteration {
	row := watch.Iteration{N: rec.Iteration, Outcome: rec.Outcome, Validation: rec.Validation,
		Duration: time.Duration(rec.DurationMS) * time.Millisecond, Insertions: rec.Insertions, Deletions: rec.Deletions}
	if rec.Judge != nil {
		row.Judge = rec.Judge.Verdict
	}
	if rec.CostKnown() {
		row.Cost = display.Dollars(rec.CostUSD)
	}
	if !rec.Pruned {
		row.Diff, row.Output = store.DiffPath(rec.Iteration), store.OutputPath(rec.Iteration)
	}
	return row
}

// printable keeps the agent's words (in the state and records) from moving the cursor
// or restyling the terminal.
func printable(s watch.Snapshot) watch.Snapshot {
	for _, p := range []*string{&s.Loop, &s.Branch, &s.Mode, &s.Task, &s.Agent, &s.Model, &s.Status, &s.Spend} {
		*p = display.Printable(*p)
	}
	for i := range s.Iterations {
		it := &s.Iterations[i]
		for _, p := range []*string{&it.Outcome, &it.Validation, &it.Judge} {
			*p = display.Printable(*p)
		}
	}
	return s
}
