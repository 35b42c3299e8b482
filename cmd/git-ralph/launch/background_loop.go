package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// CanDetach refuses --background where a process cannot be detached (no sessions).
func CanDetach() error { return detached(&exec.Cmd{}) }

// Background starts the loop in the background. It checks first, here, what a start in
// the foreground checks before its first iteration (the settings, the preflight, the
// approvals, asked on this terminal, and that no loop holds the work tree), so that a
// mistake is told on the terminal rather than in a log nobody reads; then it runs the
// command (args) again as a detached child and returns once that holds the lock.
func (l *Loop) Background(ctx context.Context, args []string) error {
	if err := CanDetach(); err != nil {
		return err
	}
	if l.DryRun {
		return hints.Wrap(errors.New("--dry-run runs nothing to put in the background"), "drop --background to see the settings and the prompt")
	}
	st, err := l.check(ctx)
	if err != nil {
		return err
	}
	if err := l.free(ctx, st.root); err != nil {
		return err
	}
	name, look := l.Worktree, ""
	if name == "" {
		name = LoopName(ctx, st.here, st.root)
	} else {
		look = " --loop " + name
	}
	b := &Background{Streams: l.Streams, Here: st.here, Name: name, Args: args, Commands: func(int) [][2]string {
		return [][2]string{{"watch", "git ralph watch" + look}, {"status", "git ralph status" + look},
			{"pause", "git ralph pause" + look}, {"cancel", "git ralph cancel" + look}}
	}}
	return b.Run(ctx)
}

// Background starts the best-of in the background, once the preflight its candidates
// share passed here (settings, agent, approvals asked on this terminal).
func (b *BestOf) Background(ctx context.Context, here string, args []string) error {
	if err := CanDetach(); err != nil {
		return err
	}
	if err := b.preflight(here); err != nil {
		return err
	}
	name := b.Name
	if name == "" {
		name = fleet.DefaultBestOfName
	}
	bg := &Background{Streams: b.Streams, Here: here, Name: name, Args: args, Commands: func(pid int) [][2]string {
		return [][2]string{{"watch", "git ralph watch"}, {"runs", "git ralph runs"},
			{"cancel", fmt.Sprintf("kill %d (as Ctrl+C: every candidate stops)", pid)}}
	}}
	return bg.Run(ctx)
}

// free refuses when another loop holds the work tree root, as the lock would.
func (l *Loop) free(ctx context.Context, root string) error {
	path, err := LockPath(ctx, root)
	if err != nil {
		return err
	}
	h, held, err := history.ReadHolder(path)
	switch {
	case err != nil:
		return err
	case held && l.SkipIfBusy:
		return exitcode.Quiet(exitcode.Busy)
	case held:
		return &exitcode.Error{Code: exitcode.Busy, Err: &history.LockedError{Holder: h}}
	}
	return nil
}

// LoopName is the name of the loop of the work tree root (fleet's: MainName for the
// main work tree), as --loop takes it; here is any work tree of the repository.
func LoopName(ctx context.Context, here, root string) string {
	members, _, err := fleet.Members(ctx, here)
	if err == nil {
		for _, m := range members {
			if samePath(m.Path, root) {
				return m.Name
			}
		}
	}
	return filepath.Base(root) // a linked worktree where no loop ran yet: as fleet will name it
}

// samePath reports whether two paths name one directory.
func samePath(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(ia, ib)
}

// Register records the repository of the work tree here in the user's registry, for
// `runs --all`; a failure is a warning: the loop runs all the same.
func Register(ctx context.Context, stderr io.Writer, here string) {
	err := register(ctx, here)
	if err != nil {
		fmt.Fprintf(stderr, "warning: the repository is not registered for 'git ralph runs --all': %s\n", display.PrintableText(err.Error()))
	}
}

func register(ctx context.Context, here string) error {
	repos, err := history.UserRepos()
	if err != nil {
		return err
	}
	main, err := fleet.Find(ctx, here, fleet.MainName)
	if err != nil {
		return err
	}
	return repos.Add(main.Path)
}
