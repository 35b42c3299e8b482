package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

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
