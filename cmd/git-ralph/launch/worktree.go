package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/prompts"
)

// Place is where a loop runs, beyond its root: the line that says so, and the work
// trees whose trust approvals it shares.
type Place struct {
	note      string
	TrustedAt []string
	// BaseBranch is a worktree loop's base branch (refs/heads/NAME): its baseline
	// follows it (loop.Config.BaseBranch). "": none.
	BaseBranch string
}

// say prints where the loop runs, if that is not simply here.
func (p Place) say(w io.Writer) {
	if p.note != "" {
		fmt.Fprintln(w, p.note)
	}
}

// WorktreeLoop is where `loop --worktree NAME` runs: the loop's worktree, created or
// reused, and the main work tree, whose trust approvals the worktree shares. Without
// --worktree it is the work tree the command was started in.
// A dry run (o.DryRun) creates nothing, and says on stdout where it looks.
func WorktreeLoop(ctx context.Context, stdout io.Writer, here string, o *Options) (string, Place, error) {
	if o.Worktree == "" {
		if o.Base != "" {
			return "", Place{}, hints.Wrap(errors.New("--base needs --worktree"), "start a loop in a worktree of its own with --worktree NAME --base REV")
		}
		return here, Place{}, nil
	}
	var where Place
	if main, err := fleet.Find(ctx, here, fleet.MainName); err == nil { // a bare repository has none
		where.TrustedAt = []string{main.Path}
	}
	if o.DryRun {
		root, err := dryRunWorktree(ctx, stdout, here, o)
		return root, where, err
	}
	l, err := fleet.Open(ctx, here, o.Worktree, o.Base)
	if err != nil {
		return "", Place{}, err
	}
	where.note = fmt.Sprintf("git-ralph: loop %s runs in its %sworktree %s (branch %s, %s)", o.Worktree,
		map[bool]string{true: "new ", false: ""}[l.Created],
		display.Printable(l.Path), strings.TrimPrefix(l.Branch, "refs/heads/"), describeBase(l.BaseBranch, l.BaseCommit))
	where.BaseBranch = l.BaseBranch
	return l.Path, where, nil
}

// dryRunWorktree is where a dry run of `loop --worktree NAME` looks: the loop's worktree if
// it exists, else the work tree it would be created from, with a note; it creates nothing.
func dryRunWorktree(ctx context.Context, stdout io.Writer, here string, o *Options) (string, error) {
	if err := fleet.CheckName(o.Worktree); err != nil {
		return "", err
	}
	if m, err := fleet.Find(ctx, here, o.Worktree); err == nil {
		fmt.Fprintf(stdout, "The loop %s runs in the worktree %s.\n", o.Worktree, display.Printable(m.Path))
		return m.Path, nil
	}
	fmt.Fprintf(stdout, "The loop %s has no worktree yet: 'git ralph loop --worktree %s' would create it from %s; shown here with this work tree's files.\n",
		o.Worktree, o.Worktree, map[bool]string{true: "HEAD", false: display.Printable(o.Base)}[o.Base == ""])
	return here, nil
}

// inWorktree explains a prompt file missing in a loop's worktree: the worktree has what is
// committed on its branch, not the files of the work tree the command ran in.
func (o *Options) inWorktree(err error) error {
	var missing *prompts.MissingError
	if o.Worktree == "" || !errors.As(err, &missing) {
		return err
	}
	return hints.Wrap(err, "a loop's worktree holds what is committed on its branch ralph/%s, not your uncommitted files: write %s there (and .ralph/config.toml if you use one), or commit them before you start a loop",
		o.Worktree, filepath.Base(missing.Path))
}

// describeBase says what a worktree loop started from: "from main at 1a2b3c4".
func describeBase(branch, commit string) string {
	if branch == "" {
		return "from " + display.ShortHash(commit)
	}
	return fmt.Sprintf("from %s at %s", strings.TrimPrefix(branch, "refs/heads/"), display.ShortHash(commit))
}

// LoopRoot is the work tree of the loop a per-loop command acts on: the one named by
// --loop, else the one the command runs in.
func LoopRoot(ctx context.Context, name string) (string, error) {
	here, err := RepoRoot(ctx)
	if err != nil || name == "" {
		return here, err
	}
	m, err := fleet.Find(ctx, here, name)
	if err != nil {
		return "", err
	}
	if _, err := gitops.Root(ctx, m.Path); err != nil {
		return "", hints.Wrap(fmt.Errorf("the loop %s's work tree %s: %w", name, m.Path, err), "'git ralph runs' shows the loops and where they are")
	}
	return m.Path, nil
}
