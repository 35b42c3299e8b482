package servesource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/serve"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Repo reads the loops of the repository of the work tree Here for the dashboard, as
// runs and history do, taking nothing a running loop needs (no lock, no merge recovery:
// serve only looks); the command adds the actions.
type Repo struct {
	Here string
	// Formats are the live logs' formats, read again only when the records change; nil:
	// read at each live stream's first look
	Formats *LiveFormats
}

// Merges are the merge queue's entries of the repository's worktree loops, by name.
func (r Repo) Merges(ctx context.Context) (map[string]history.Merge, error) {
	members, _, err := fleet.Members(ctx, r.Here)
	if err != nil {
		return nil, err
	}
	common, err := gitops.CommonDir(ctx, r.Here)
	if err != nil {
		return nil, err
	}
	merges := map[string]history.Merge{}
	for _, m := range members {
		if m.Worktree == nil {
			continue
		}
		if merge, found, err := history.LoadMerge(common, m.Name); err == nil && found {
			merges[m.Name] = merge
		}
	}
	return merges, nil
}

// Loops are the runs `git ralph runs` lists, read by the same status.RunsOf, but not
// as the command reads them: that recovers killed merges (a write) and warns on the terminal serve runs in.
func (r Repo) Loops(ctx context.Context) ([]status.Run, error) {
	members, _, err := fleet.Members(ctx, r.Here)
	if err != nil {
		return nil, err
	}
	return status.RunsOf(ctx, r.Here, members, time.Now()), nil
}

// store opens the named loop's history; a loop that does not exist is serve.ErrNotFound.
func (r Repo) store(ctx context.Context, loop string) (*history.Store, error) {
	m, err := fleet.Find(ctx, r.Here, loop)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", serve.ErrNotFound, err)
	}
	return history.OpenStore(m.Path)
}

// Live finds the loop once (git) and returns a reader of its latest iteration's log that
// reads files only, as watch does every tick: the state, the lock's holder, a few records.
func (r Repo) Live(ctx context.Context, loop string) (serve.LiveReader, error) {
	m, err := fleet.Find(ctx, r.Here, loop)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", serve.ErrNotFound, err)
	}
	path, err := gitops.GitPath(ctx, m.Path, history.LockFile)
	if err != nil {
		return nil, err
	}
	store, err := history.OpenStore(m.Path)
	if err != nil {
		return nil, err
	}
	var last serve.LiveLog // the format is looked up once per iteration
	return func() (serve.LiveLog, error) {
		st, err := status.Load(ctx, m.Path, path)
		if err != nil {
			return serve.LiveLog{}, err
		}
		if m.Worktree != nil {
			st.Place.Name = m.Name // its status names 'loop --worktree NAME'
		}
		live := serve.LiveLog{State: display.Printable(status.Summary(st))}
		if st.State == nil || st.HistoryIteration == 0 {
			return live, nil
		}
		live.Iteration, live.Path = st.HistoryIteration, store.OutputPath(st.HistoryIteration)
		if live.Iteration == last.Iteration {
			live.Format = last.Format
		} else {
			live.Format = r.Formats.of(m.Path, store, live.Iteration)
		}
		last = live
		return live, nil
	}, nil
}

// Iterations are the records of the loop's history, every one, with those it cannot read.
func (r Repo) Iterations(ctx context.Context, loop string) ([]history.Record, []history.BadRecord, error) {
	store, err := r.store(ctx, loop)
	if err != nil {
		return nil, nil, err
	}
	return store.Scan(0)
}

// Diff reads iteration n's saved diff as `history --diff N` prints it, never through a
// committed symlink, at most limit bytes.
func (r Repo) Diff(ctx context.Context, loop string, n int, limit int64) ([]byte, bool, error) {
	store, err := r.store(ctx, loop)
	if err != nil {
		return nil, false, err
	}
	f, err := repofile.OpenOwn(store.DiffPath(n), store.DiffPath(n))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("%w: iteration %d of %s has no saved diff", serve.ErrNotFound, n, loop)
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading the diff of iteration %d: %w", n, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading the diff of iteration %d: %w", n, err)
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}
