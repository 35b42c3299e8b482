package watchsource

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/rollback"
)

// checkpointsEvery is how often the view lists the checkpoints: they are refs, listed by
// git, so not every tick; the view's own 'c' lists them again at once.
const checkpointsEvery = 10 * time.Second

// Checkpoints is the view's line about the work tree's named checkpoints.
type Checkpoints struct {
	Stale atomic.Bool // set by the view's 'c': list them again at once
	at    time.Time
	text  string
}

// Line says how many checkpoints there are and the last one, listed again when stale.
func (w *Checkpoints) Line(ctx context.Context, root string, now time.Time) string {
	if w.text != "" && !w.Stale.Swap(false) && now.Sub(w.at) < checkpointsEvery {
		return w.text
	}
	w.at = now
	list, err := rollback.List(ctx, root)
	switch {
	case err != nil:
		w.text = "checkpoints: unreadable (" + display.OneLine(err.Error()) + ")"
	case len(list) == 0:
		w.text = "checkpoints: none ('c' takes one)"
	default:
		last := list[len(list)-1]
		w.text = fmt.Sprintf("checkpoints: %d, the last %s at %s", len(list), display.Printable(last.Label), display.LocalTime(last.Time))
	}
	return w.text
}
