package serve

import (
	"context"
	"errors"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// Source is what the dashboard shows, read by the command from the repository. Its
// methods are called per request, so the pages show the loops as they are now; they only
// read what the loops write, never take a loop's lock.
type Source interface {
	// Loops is every loop of the repository, as `git ralph runs` reads them.
	Loops(ctx context.Context) ([]status.Run, error)
	// Iterations is the loop's recorded iterations, oldest first, and the ones left out
	// because their record could not be read.
	Iterations(ctx context.Context, loop string) ([]history.Record, []history.BadRecord, error)
	// Diff is iteration n's saved diff, at most limit bytes of it, and whether it was cut
	// there. ErrNotFound when the loop or the diff does not exist.
	Diff(ctx context.Context, loop string, n int, limit int64) (diff []byte, cut bool, err error)
	// Live finds the loop (ErrNotFound when there is none) and returns what reads its
	// latest iteration's output log. The reader is called every second while a page
	// shows the loop's live output, so it reads files only (no git, no lock).
	Live(ctx context.Context, loop string) (LiveReader, error)
}

// LiveReader reads, each time it is called, where the loop's latest iteration writes.
type LiveReader func() (LiveLog, error)

// LiveLog is the loop's state and the output log of its latest iteration.
type LiveLog struct {
	State     string          // the loop's state in `status`'s words, one line
	Iteration int             // the latest iteration's number for history; 0 before any
	Path      string          // its output log; "" before any
	Format    agentcli.Format // how the agent of that iteration writes (the renderer's)
}

// Actor is the part of a Source that steers a loop (pause, resume, cancel, checkpoint,
// inject); a Source without it serves read-only pages. Act's error is ErrNotFound for a
// loop or an action that does not exist (the POST's 404).
type Actor interface {
	Act(ctx context.Context, loop, action, text string) (said string, err error)
}

// Merger is the part of a Source that reads the merge queue: each loop's entry, by loop
// name (a loop that never asked for a merge has none). Without it the overview shows the
// queue's state alone, as `runs` does, without the conflicting files or the validation's
// output.
type Merger interface {
	Merges(ctx context.Context) (map[string]history.Merge, error)
}

// ErrNotFound is a loop, an iteration or a diff that does not exist: a 404.
var ErrNotFound = errors.New("not found")
