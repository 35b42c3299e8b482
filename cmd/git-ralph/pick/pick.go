package pick

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/serve"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Picker starts the merges a person picks among a best-of's candidates: the
// dashboard's "Merge this one" and watch's m. Each is a child `git-ralph merge NAME-k`,
// the very command the ranking names, so that the merge is exactly the one the terminal
// would run (the merge queue, the main work tree's validation approved as for `merge`,
// the notifications): nothing unvalidated lands. It runs detached: in a process group
// of its own (the Ctrl+C that stops the view does not stop a merge halfway), with its
// output appended to .ralph/logs/merge-NAME-k.log, and the view does not wait for it;
// the merge queue's record, which the views show, says where it is.
type Picker struct {
	here string // the work tree the view runs in: the child runs there, its log goes there
	Exe  string // the git-ralph program the merges run as ("": os.Executable)

	mu      sync.Mutex
	started map[string]*serve.PickedMerge // by candidate; guarded by mu
}

// New is the picker of the merges of the best-of candidates of the repository of the
// work tree here.
func New(here string) *Picker {
	return &Picker{here: here, started: map[string]*serve.PickedMerge{}}
}

// errNoGroup is a best-of group that does not exist (the dashboard's 404).
var errNoGroup = serve.ErrNotFound

// Pick starts the merge of the group's candidate, after checking that it can be merged:
// a candidate of that group, which ranked its candidates, whose run has ended, with no
// other merge under way (started here, or anywhere in the merge queue).
func (p *Picker) Pick(ctx context.Context, group, candidate string) (string, error) {
	r, found, err := fleet.LoadRanking(ctx, p.here, group)
	switch {
	case err != nil:
		return "", err
	case !found:
		return "", fmt.Errorf("%w: the repository has no best-of %q", errNoGroup, group)
	case !r.Has(candidate):
		return "", hints.Wrap(fmt.Errorf("%q is not a candidate of the best-of %s", candidate, group),
			"its candidates are %s", strings.Join(r.Candidates, ", "))
	case !r.IsRanked():
		return "", hints.Wrap(fmt.Errorf("the best-of %s has not ranked its candidates: they have not all ended", group),
			"pick one once the best-of has ranked them, or run 'git ralph merge %s' yourself", candidate)
	}
	if err := p.mergeable(ctx, r, candidate); err != nil {
		return "", err
	}
	if err := p.ended(ctx, candidate); err != nil {
		return "", err
	}
	if err := p.validated(ctx, candidate); err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, m := range p.started {
		if m.Running {
			return "", hints.Wrap(fmt.Errorf("the merge of %s started from here is still running", name), "wait until it is done, then pick again")
		}
	}
	if err := p.queueIdle(ctx); err != nil {
		return "", err
	}
	return p.start(candidate)
}

// ended refuses a candidate that is gone or whose run has not ended for good.
func (p *Picker) ended(ctx context.Context, candidate string) error {
	m, err := fleet.Find(ctx, p.here, candidate)
	if err != nil {
		return err
	}
	ended, err := fleet.Ended(m)
	if err != nil {
		return fmt.Errorf("the candidate %s: %w", candidate, err)
	}
	if !ended {
		return hints.Wrap(fmt.Errorf("the candidate %s has not ended", candidate), "'git ralph status --loop %s' says where it is", candidate)
	}
	return nil
}

// queueIdle refuses while a merge waits or runs in the merge queue (a live process holds
// it): the pick would wait behind it, out of sight.
func (p *Picker) queueIdle(ctx context.Context) error {
	common, err := gitops.CommonDir(ctx, p.here)
	if err != nil {
		return err
	}
	merges, _, err := history.Merges(common)
	if err != nil {
		return err
	}
	for _, m := range merges {
		if (m.State == history.MergeQueued || m.State == history.MergeMerging) && history.MergeHeld(common, m.Name) {
			return hints.Wrap(fmt.Errorf("another merge is under way: %s is %s", m.Name, m.State), "wait until it is done ('git ralph runs' shows it), then pick again")
		}
	}
	return nil
}

// start runs `git-ralph merge candidate` detached, its output appended to its log, and
// says so; a goroutine waits for it, so that its end (and exit code) is known.
func (p *Picker) start(candidate string) (string, error) {
	exe := p.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", fmt.Errorf("finding git-ralph's own program to run the merge: %w", err)
		}
	}
	rel := filepath.Join(filepath.FromSlash(history.LogsDir), "merge-"+candidate+".log")
	path := filepath.Join(p.here, rel)
	// .ralph/ and .ralph/logs must be the repository's own directories, not links a clone
	// committed to put the log elsewhere; and .ralph/ keeps its .gitignore
	if err := history.EnsureGitignore(p.here); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	log, err := repofile.OpenAppend(path, 0o644)
	if err != nil {
		return "", fmt.Errorf("opening the merge's log %s: %w", path, err)
	}
	now := time.Now()
	fmt.Fprintf(log, "== git ralph merge %s, picked at %s ==\n", candidate, now.Format(time.RFC3339))
	cmd := exec.Command(exe, "merge", candidate)
	cmd.Dir, cmd.Stdout, cmd.Stderr = p.here, log, log
	detach(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		return "", fmt.Errorf("starting git ralph merge %s: %w", candidate, err)
	}
	picked := &serve.PickedMerge{Running: true, Log: rel, Started: now}
	p.started[candidate] = picked
	go func() {
		err := cmd.Wait()
		fmt.Fprintf(log, "== git ralph merge %s ended: %v ==\n", candidate, pickExit(err))
		log.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		picked.Running, picked.Exit = false, cmd.ProcessState.ExitCode()
	}()
	return fmt.Sprintf("started git ralph merge %s: it goes through the merge queue, validated before it lands; its output goes to %s", candidate, rel), nil
}

// pickExit is how a merge's process ended, for its log.
func pickExit(err error) string {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return "exit code 0"
	case errors.As(err, &exit):
		return fmt.Sprintf("exit code %d", exit.ExitCode())
	}
	return err.Error()
}

// Picked is what became of the merges started here, by candidate.
func (p *Picker) Picked() map[string]serve.PickedMerge {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]serve.PickedMerge, len(p.started))
	for name, m := range p.started {
		out[name] = *m
	}
	return out
}
