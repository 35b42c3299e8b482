package pick

import (
	"context"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// mergeable refuses the ranked group's candidate that the views would not offer
// (fleet.Mergeable: it never ran an iteration, a process runs it, or the merge queue is
// merging it or done with it), read as `runs` reads it, so that a POST made by hand
// cannot pick what the page shows no button for.
func (p *Picker) mergeable(ctx context.Context, r fleet.Ranking, candidate string) error {
	m, err := fleet.Find(ctx, p.here, candidate)
	if err != nil {
		return err
	}
	run := status.RunsOf(ctx, p.here, []fleet.Member{m}, time.Now())[0]
	return fleet.Mergeable(figuresOf(r, candidate), run.PID, run.State)
}

// figuresOf is the candidate's figures in the ranking; a candidate the ranking did not
// measure has none (no iteration).
func figuresOf(r fleet.Ranking, candidate string) fleet.Figures {
	for _, f := range r.Ranked {
		if f.Name == candidate {
			return f
		}
	}
	return fleet.Figures{Name: candidate}
}
