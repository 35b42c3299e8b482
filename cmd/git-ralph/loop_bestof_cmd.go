package main

import (
	"context"
	"fmt"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
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
var bestOfOnly = map[string]bool{"best-of": true, "jobs": true, "score": true, "worktree": true, "merge": true, "background": true}

// runBestOf runs the candidates as child git-ralph processes, each `loop --worktree
// NAME-k` with this command's other flags, ranks them (launch.BestOf) and merges the
// winner with --merge.
func (c *LoopCmd) runBestOf(ctx context.Context, s Streams, in *interrupts) error {
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	child, err := candidateLoop(c)
	if err != nil {
		return err
	}
	b := &launch.BestOf{Streams: s.launch(), Signals: in.launch(), Trust: s.terminal(), Name: c.Worktree,
		N: *c.BestOf, Jobs: c.Jobs, Score: c.Score, Child: child, Options: *c.options()}
	winner, err := b.Run(ctx, here)
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
	return merge.merging(s, nil).Queue(ctx, here, nil, in.hurry)
}

// candidateLoop is every candidate's command line but its --worktree: the loop flags c
// was given, without those of the best-of itself, and the task.
func candidateLoop(c *LoopCmd) (launch.ChildLoop, error) {
	flags, err := launch.FlagArgs(c, bestOfOnly)
	return launch.ChildLoop{Flags: flags, Task: c.Task}, err
}
