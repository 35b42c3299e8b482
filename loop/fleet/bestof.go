package fleet

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/git-ralph/git-ralph/history"
)

// DefaultBestOfName names the candidates of `loop --best-of N` without --worktree:
// best-of-1 … best-of-N.
const DefaultBestOfName = "best-of"

// MaxCandidates bounds N in --best-of N: each candidate is a worktree, a branch and an
// agent spending money.
const MaxCandidates = 32

// CandidateNames are the loops of a best-of-N named name: name-1 … name-N.
func CandidateNames(name string, n int) ([]string, error) {
	if n < 1 || n > MaxCandidates {
		return nil, &Error{Err: fmt.Errorf("--best-of %d: the number of candidates must be between 1 and %d", n, MaxCandidates),
			Advice: "e.g. --best-of 3 runs three candidate loops and keeps the best"}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = name + "-" + strconv.Itoa(i+1)
		if err := CheckName(names[i]); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// Ended reports whether the loop m's last run is over for good (success, max-iters,
// aborted, idle), so that a best-of-N run again leaves it as it is; a loop never run,
// interrupted, crashed, limited or stopped by a fatal error is not.
func Ended(m Member) (bool, error) {
	if m.Gone {
		return false, nil
	}
	st, err := history.LoadState(m.Path)
	if err != nil {
		return false, err
	}
	return st.Exists() && !st.Active && st.StopReason.Finished(), nil
}

// Unfinished are the names among names whose loop has not ended for good (see Ended);
// a loop that does not exist yet is unfinished.
func Unfinished(ctx context.Context, dir string, names []string) ([]string, error) {
	list, _, err := Members(ctx, dir)
	if err != nil {
		return nil, err
	}
	byName := map[string]Member{}
	for _, m := range list {
		if m.Worktree != nil {
			byName[m.Name] = m
		}
	}
	var todo []string
	for _, name := range names {
		m, ok := byName[name]
		if !ok {
			todo = append(todo, name)
			continue
		}
		ended, err := Ended(m)
		if err != nil {
			return nil, fmt.Errorf("the candidate %s: %w", name, err)
		}
		if !ended {
			todo = append(todo, name)
		}
	}
	return todo, nil
}

// RunEach runs run for each name, at most jobs at a time, in the order given, and
// returns each one's error by name. Once ctx is done no new one starts: those left out
// get ctx's error; the running ones are run's to stop.
func RunEach(ctx context.Context, names []string, jobs int, run func(ctx context.Context, name string) error) map[string]error {
	if jobs < 1 {
		jobs = 1
	}
	errs := make(map[string]error, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, jobs)
	for _, name := range names {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil { // a free slot and a cancellation at once: start nothing
			mu.Lock()
			errs[name] = context.Cause(ctx)
			mu.Unlock()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := run(ctx, name)
			mu.Lock()
			errs[name] = err
			mu.Unlock()
			<-slots
		}()
	}
	wg.Wait()
	return errs
}
