package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// lockCheck: what a dead or running loop left in the work tree's way. The agent of a
// loop that died (kill -9) still running is a failure: it may still change the work tree
// a new run starts in. A loop running now, a run that died, a pause asked are warnings:
// the scheduled run skips, resumes or holds.
func lockCheck(ctx context.Context, in Input) Result {
	const name = "lock"
	st, err := status.Read(ctx, in.Root, in.LockPath, in.Now)
	switch {
	case err != nil:
		return fail(name, "the loop's state cannot be read: "+display.Printable(err.Error()), "'git ralph status' says more")
	case st.Leftover != nil:
		return fail(name, fmt.Sprintf("the agent of a loop that died still runs (process group %s)", pids(st.Leftover.PIDs)),
			"'git ralph cancel' stops it")
	case st.Running && st.LockHolder != nil:
		return warn(name, fmt.Sprintf("a loop runs now (pid %d on %s): a scheduled run skips this work tree while it does", st.LockHolder.PID, display.Printable(st.LockHolder.Host)),
			"'git ralph status' shows it; 'git ralph cancel' stops it")
	case st.PauseRequested:
		return warn(name, "a pause is asked: the next run holds before its first agent until 'git ralph resume'", "'git ralph resume' lets it go on")
	case st.State != nil && st.Active:
		return warn(name, "the last run died while an agent ran (no lock is held, no agent of it runs): the next run resumes it",
			"'git ralph status' shows where it stopped")
	}
	return ok(name, "no loop runs here and none left an agent running")
}

func pids(list []int) string {
	words := make([]string, len(list))
	for i, p := range list {
		words[i] = fmt.Sprint(p)
	}
	return strings.Join(words, ", ")
}

// worktreeChecks: worktree loops whose directory is gone, and what sits in the
// worktrees' directory without being a loop's worktree (a stray, or the scratch worktree
// an interrupted merge left). None stops a run; each takes disk or confuses 'runs'.
func worktreeChecks(ctx context.Context, in Input) []Result {
	const name = "worktrees"
	members, bad, err := fleet.Members(ctx, in.Root)
	if err != nil {
		return []Result{warn(name, "the repository's loops cannot be listed: "+display.Printable(err.Error()), "'git ralph runs' says more")}
	}
	var found []string
	for _, e := range bad {
		found = append(found, display.Printable(e.Error()))
	}
	var mainPath string
	known := map[string]bool{}
	for _, m := range members {
		known[filepath.Clean(m.Path)] = true
		if m.Main {
			mainPath = m.Path
		}
		if m.Gone {
			found = append(found, fmt.Sprintf("worktree loop %s: its directory %s is gone", display.Printable(m.Name), display.Printable(m.Path)))
		}
	}
	found = append(found, strays(ctx, in.Root, mainPath, known)...)
	if len(found) > 0 {
		return []Result{warn(name, strings.Join(found, "; "),
			"'git ralph prune' removes the loops that are gone ('--force' also what is no loop's); 'git ralph runs' removes an interrupted merge's scratch worktree")}
	}
	return []Result{ok(name, fmt.Sprintf("%d loop%s, none left behind", len(members), plural(len(members), "", "s")))}
}

// strays lists what sits in the worktrees' directory beside the main tree that is no
// loop's and no worktree of the repository, or is a merge's scratch worktree.
func strays(ctx context.Context, root, mainPath string, known map[string]bool) []string {
	if mainPath == "" {
		return nil
	}
	place := filepath.Dir(fleet.Place(mainPath, "x"))
	entries, err := os.ReadDir(place)
	if err != nil {
		return nil
	}
	trees, _ := gitwt.List(ctx, root)
	for _, wt := range trees {
		if !strings.HasPrefix(filepath.Base(wt.Path), ".merge-") {
			known[filepath.Clean(wt.Path)] = true
		}
	}
	var out []string
	for _, e := range entries {
		path := filepath.Join(place, e.Name())
		switch {
		case known[filepath.Clean(path)]:
		case strings.HasPrefix(e.Name(), ".merge-"):
			out = append(out, "a merge's scratch worktree (of a merge running now, or one interrupted) "+display.Printable(path))
		default:
			out = append(out, "no loop's: "+display.Printable(path))
		}
	}
	return out
}
