package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/rollback"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/watch"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// WatchCmd is `git ralph watch`.
type WatchCmd struct {
	LoopFlag `embed:""`
}

// Run shows the loop of the work tree (or --loop NAME) full screen until q. With no loop
// running there and no --loop, it lists the repository's loops to drill into.
func (c *WatchCmd) Run(ctx context.Context, s Streams) error {
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	terminal := reporting.IsTerminal(s.Stdin) && reporting.IsTerminal(s.Stdout)
	_, noColor := os.LookupEnv("NO_COLOR")
	if _, err := runningLoop(ctx, root); errors.Is(err, errNoLoop) && c.Loop == "" {
		if !terminal {
			fmt.Fprintln(s.Stdout, "no loop is running in this work tree; the repository's loops:")
			if err := (&RunsCmd{}).Run(ctx, s); err != nil {
				return err
			}
			fmt.Fprintln(s.Stdout, "hint: git ralph watch --loop NAME")
			return nil
		}
		return watchFleet(ctx, s, !noColor)
	}
	if !terminal {
		return hints.Wrap(errors.New("watch needs a terminal"), "'git ralph status --watch' prints each change of the status, for a log or a pipe")
	}
	model, err := loopView(ctx, c.LoopFlag, !noColor)
	if err != nil {
		return err
	}
	return runView(ctx, model, s.Stdin, s.Stdout)
}

// loopView is the full-screen view of the loop f names.
func loopView(ctx context.Context, f LoopFlag, color bool) (*watch.Model, error) {
	root, err := f.root(ctx)
	if err != nil {
		return nil, err
	}
	path, err := lockPath(ctx, root)
	if err != nil {
		return nil, err
	}
	cps := &watchedCheckpoints{}
	// which loop it is (the commands its status names) and its branch: git, once
	reader := &watchReader{root: root, lock: path, place: status.LoopAt(ctx, root)}
	if branch, err := gitops.CurrentBranch(ctx, root); err == nil {
		reader.branch = branch
	}
	return watch.New(func() (watch.Snapshot, error) {
		snap, err := reader.snapshot(ctx, time.Now())
		if err == nil {
			snap.Notes = append(snap.Notes, cps.line(ctx, root, time.Now()))
		}
		return snap, err
	}, watchActions(ctx, f, cps), color), nil
}

// watchFleet lists the repository's loops full screen, read again every few seconds;
// Enter drills into one (its view, as --loop NAME shows it), Esc comes back, q quits.
func watchFleet(ctx context.Context, s Streams, color bool) error {
	here, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	runs, err := readRuns(ctx, s, here, time.Now()) // repairs what a killed merge left, once
	if err != nil {
		return err
	}
	first, err := fleetLoopsOf(ctx, here, runs)
	if err != nil {
		return err
	}
	read := func() (watch.Loops, error) {
		members, _, err := fleet.Members(ctx, here)
		if err != nil {
			return watch.Loops{}, err
		}
		return fleetLoopsOf(ctx, here, runsOf(ctx, here, members, time.Now()))
	}
	open := func(name string) (*watch.Model, error) { return loopView(ctx, LoopFlag{Loop: name}, color) }
	view := watch.NewFleet("no loop is running in this work tree; the repository's loops:", first, read, open, color)
	picks := newMergePicker(here) // m: a best-of candidate's merge, as serve's button starts it
	view.SetMerge(func(group, candidate string) (string, error) {
		said, err := picks.pick(ctx, group, candidate)
		return said, withHint(err)
	})
	return runView(ctx, view, s.Stdin, s.Stdout)
}

// fleetLoops is runs as the fleet view lists them: in `runs`'s columns.
func fleetLoops(runs []status.Run) (watch.Loops, error) {
	var table bytes.Buffer
	if err := runsTable(&table, runs, time.Now()); err != nil {
		return watch.Loops{}, err
	}
	rows := strings.Split(strings.TrimRight(table.String(), "\n"), "\n")
	loops := watch.Loops{Header: rows[0], Lines: rows[1:]}
	for _, r := range runs {
		loops.Names, loops.States = append(loops.Names, r.Name), append(loops.States, r.State)
	}
	return loops, nil
}

// watchActions are the view's keys: each runs the command of the same name, its output
// shown on one line.
func watchActions(ctx context.Context, f LoopFlag, cps *watchedCheckpoints) watch.Actions {
	run := func(cmd commandRun) (string, error) { return runForView(ctx, cmd, "") }
	return watch.Actions{
		Pause:  func(string) (string, error) { return run(&PauseCmd{LoopFlag: f}) },
		Resume: func(string) (string, error) { return run(&ResumeCmd{LoopFlag: f}) },
		Inject: func(text string) (string, error) { return run(&InjectCmd{Text: text, LoopFlag: f}) },
		Checkpoint: func(string) (string, error) {
			defer cps.stale.Store(true)
			return run(&CheckpointCmd{LoopFlag: f})
		},
		Cancel: func(string) (string, error) { return run(&CancelCmd{LoopFlag: f}) },
	}
}

// checkpointsEvery is how often the view lists the checkpoints: they are refs, listed by
// git, so not every tick; the view's own 'c' lists them again at once.
const checkpointsEvery = 10 * time.Second

// watchedCheckpoints is the view's line about the work tree's named checkpoints.
type watchedCheckpoints struct {
	stale atomic.Bool
	at    time.Time
	text  string
}

// line says how many checkpoints there are and the last one, listed again when stale.
func (w *watchedCheckpoints) line(ctx context.Context, root string, now time.Time) string {
	if w.text != "" && !w.stale.Swap(false) && now.Sub(w.at) < checkpointsEvery {
		return w.text
	}
	w.at = now
	list, err := rollback.List(ctx, root)
	switch {
	case err != nil:
		w.text = "checkpoints: unreadable (" + oneLineText(err.Error()) + ")"
	case len(list) == 0:
		w.text = "checkpoints: none ('c' takes one)"
	default:
		last := list[len(list)-1]
		w.text = fmt.Sprintf("checkpoints: %d, the last %s at %s", len(list), display.Printable(last.Label), localTime(last.Time))
	}
	return w.text
}

func oneLineText(s string) string { return display.Printable(strings.Join(strings.Fields(s), " ")) }
