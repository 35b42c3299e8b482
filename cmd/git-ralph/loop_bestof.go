package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// BestOfFlags are the flags of `loop --best-of N`; the other flags of loop go to every
// candidate as they are.
type BestOfFlags struct {
	BestOf *int   `name:"best-of" help:"Run N candidate loops NAME-1 … NAME-N (NAME: --worktree, default best-of) on the same prompt, each in its own worktree, then rank them and name the best." placeholder:"N"`
	Jobs   int    `help:"With --best-of: run at most J candidates at a time (default: the machine's cores, at most N)." placeholder:"J"`
	Score  string `help:"With --best-of: a command run in each candidate's worktree once all have ended; it prints one number, higher is better." placeholder:"CMD"`
}

// bestOfOnly are the flags a candidate does not get: the best-of's own, and --worktree,
// which the candidate gets with its own name.
var bestOfOnly = map[string]bool{"best-of": true, "jobs": true, "score": true, "worktree": true, "merge": true}

// runBestOf runs the candidates as child git-ralph processes, each `loop --worktree
// NAME-k` with this command's other flags (launch.BestOf), then ranks them. Candidates
// that ended already (a best-of run again after an interruption) are not run again.
func (c *LoopCmd) runBestOf(ctx context.Context, s Streams, in *interrupts) error {
	here, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	name := c.Worktree
	if name == "" {
		name = fleet.DefaultBestOfName
	}
	names, err := fleet.CandidateNames(name, *c.BestOf)
	if err != nil {
		return err
	}
	child, err := candidateLoop(c)
	if err != nil {
		return err
	}
	b := &launch.BestOf{Streams: s.launch(), Signals: in.launch(), Trust: approvals{s},
		N: *c.BestOf, Jobs: c.Jobs, Child: child, Options: *c.options()}
	todo, err := b.Start(ctx, here, names)
	if err != nil {
		return err
	}
	keepGroup(ctx, s.Stderr, here, name, names, todo, c.Score)
	b.RunCandidates(ctx, here, todo)
	if ctx.Err() != nil {
		return exitFrom(launch.StoppedBestOf(ctx, s.Stderr, here, names))
	}
	winner, err := rankBestOf(ctx, s.Stdout, s.Stderr, here, name, names, c.Score)
	if err != nil || !c.Merge {
		return err
	}
	// the queue validates the merged result, so a winner whose own validation failed
	// cannot reach the base branch either
	fmt.Fprintf(s.Stdout, "Merging %s through the merge queue (--merge)\n", winner)
	merge := &MergeCmd{Name: winner, Notify: c.Notify}
	if c.Validate != "" { // the candidates' --validate; else the validate setting of the main work tree, which the preflight approved
		merge.Validate = &c.Validate
	}
	return merge.queue(ctx, s, here, nil, in.hurry)
}

// candidateLoop is every candidate's command line but its --worktree: the loop flags c
// was given, without those of the best-of itself, and the task.
func candidateLoop(c *LoopCmd) (launch.ChildLoop, error) {
	flags, err := launch.FlagArgs(c, bestOfOnly)
	return launch.ChildLoop{Flags: flags, Task: c.Task}, err
}

// rankBestOf measures the candidates of the group name, prints them best first, keeps
// the ranking (for watch, serve and the next look) and names the winner, whose name it
// returns.
func rankBestOf(ctx context.Context, w, errw io.Writer, here, name string, names []string, score string) (string, error) {
	list := fleet.MeasureAll(ctx, here, names, score)
	if ctx.Err() != nil { // a Ctrl+C stopped the score commands: their failures mean nothing
		fmt.Fprintln(errw, "git-ralph: best-of interrupted while ranking; every candidate has ended: run the same command again to rank them")
		return "", exitCode(exitInterrupted)
	}
	kept := fleet.Ranking{Name: name, Candidates: names, Score: score, RankedAt: time.Now(), Ranked: list}
	if old, found, err := fleet.LoadRanking(ctx, here, name); err == nil && found {
		kept.StartedAt = old.StartedAt
	}
	if err := fleet.KeepRanking(ctx, here, kept); err != nil {
		fmt.Fprintf(errw, "warning: the ranking is not kept for watch and serve: %s\n", display.PrintableText(err.Error()))
	}
	if err := fleet.WriteTable(w, list, score != "", display.Printable); err != nil {
		return "", err
	}
	best := list[0]
	if !best.Ran() {
		return "", hints.Wrap(errors.New("no candidate ran an iteration: there is nothing to rank"), "their errors are above, each line marked with the candidate's name; fix what they say and run the same command again")
	}
	return best.Name, fleet.WriteWinner(w, best, display.Printable)
}
