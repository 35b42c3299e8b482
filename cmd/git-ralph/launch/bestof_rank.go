package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// Run runs the candidates of the group b.Name as child git-ralph processes (Start,
// RunCandidates), then ranks them and returns the winner's name. Candidates that ended
// already (a best-of run again after an interruption) are not run again.
func (b *BestOf) Run(ctx context.Context, here string) (string, error) {
	name := b.Name
	if name == "" {
		name = fleet.DefaultBestOfName
	}
	names, err := fleet.CandidateNames(name, b.N)
	if err != nil {
		return "", err
	}
	todo, err := b.Start(ctx, here, names)
	if err != nil {
		return "", err
	}
	Started()
	keepGroup(ctx, b.Stderr, here, name, names, todo, b.Score)
	b.RunCandidates(ctx, here, todo)
	if ctx.Err() != nil {
		return "", StoppedBestOf(ctx, b.Stderr, here, names)
	}
	return rankBestOf(ctx, b.Stdout, b.Stderr, here, name, names, b.Score)
}

// rankBestOf measures the candidates of the group name, prints them best first, keeps
// the ranking (for watch, serve and the next look) and names the winner, whose name it
// returns.
func rankBestOf(ctx context.Context, w, errw io.Writer, here, name string, names []string, score string) (string, error) {
	list := fleet.MeasureAll(ctx, here, names, score)
	if ctx.Err() != nil { // a Ctrl+C stopped the score commands: their failures mean nothing
		fmt.Fprintln(errw, "git-ralph: best-of interrupted while ranking; every candidate has ended: run the same command again to rank them")
		return "", exitcode.Quiet(exitcode.Interrupted)
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

// keepGroup records the best-of group before its candidates run (todo not empty), so that
// watch and serve show its candidates as one group, live, until it ranks them; an
// earlier ranking goes, since candidates run again. A group whose candidates all ended
// keeps its ranking until the best-of ranks them again.
func keepGroup(ctx context.Context, errw io.Writer, here, name string, names, todo []string, score string) {
	if len(todo) == 0 {
		return
	}
	r := fleet.Ranking{Name: name, Candidates: names, Score: score, StartedAt: time.Now()}
	if err := fleet.KeepRanking(ctx, here, r); err != nil {
		fmt.Fprintf(errw, "warning: the best-of group is not recorded for watch and serve: %s\n", display.PrintableText(err.Error()))
	}
}
