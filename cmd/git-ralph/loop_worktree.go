package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/notify"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/prompts"
)

// loopPlace is where a loop runs, beyond its root: the line that says so, and the work
// trees whose trust approvals it shares.
type loopPlace struct {
	note      string
	trustedAt []string
}

// say prints where the loop runs, if that is not simply here.
func (p loopPlace) say(w io.Writer) {
	if p.note != "" {
		fmt.Fprintln(w, p.note)
	}
}

// worktreeLoop is where `loop --worktree NAME` runs: the loop's worktree, created or
// reused, and the main work tree, whose trust approvals the worktree shares. Without
// --worktree it is the work tree the command was started in.
func (c *LoopCmd) worktreeLoop(ctx context.Context, s Streams, here string) (string, loopPlace, error) {
	if c.Worktree == "" {
		if c.Base != "" {
			return "", loopPlace{}, hints.Wrap(errors.New("--base needs --worktree"), "start a loop in a worktree of its own with --worktree NAME --base REV")
		}
		return here, loopPlace{}, nil
	}
	var where loopPlace
	if main, err := fleet.Find(ctx, here, fleet.MainName); err == nil { // a bare repository has none
		where.trustedAt = []string{main.Path}
	}
	if c.DryRun {
		root, err := c.dryRunWorktree(ctx, s, here)
		return root, where, err
	}
	l, err := fleet.Open(ctx, here, c.Worktree, c.Base)
	if err != nil {
		return "", loopPlace{}, err
	}
	where.note = fmt.Sprintf("git-ralph: loop %s runs in its %sworktree %s (branch %s, %s)", c.Worktree,
		map[bool]string{true: "new ", false: ""}[l.Created],
		display.Printable(l.Path), strings.TrimPrefix(l.Branch, "refs/heads/"), describeBase(l.BaseBranch, l.BaseCommit))
	return l.Path, where, nil
}

// queueMerge merges the loop's branch through the queue once the loop ended with
// SUCCESS (--merge), the merged result held to the loop's own validate command and
// timeout (resolved, held as the loop's settings: flag, environment, the worktree's file).
func (c *LoopCmd) queueMerge(ctx context.Context, s Streams, here string, resolved *config.Config, notes *notify.Notifier) error {
	return (&MergeCmd{Name: c.Worktree, held: resolved}).queue(ctx, s, here, notes, nil)
}

// dryRunWorktree is where a dry run of `loop --worktree NAME` looks: the loop's worktree if
// it exists, else the work tree it would be created from, with a note; it creates nothing.
func (c *LoopCmd) dryRunWorktree(ctx context.Context, s Streams, here string) (string, error) {
	if err := fleet.CheckName(c.Worktree); err != nil {
		return "", err
	}
	if m, err := fleet.Find(ctx, here, c.Worktree); err == nil {
		fmt.Fprintf(s.Stdout, "The loop %s runs in the worktree %s.\n", c.Worktree, display.Printable(m.Path))
		return m.Path, nil
	}
	fmt.Fprintf(s.Stdout, "The loop %s has no worktree yet: 'git ralph loop --worktree %s' would create it from %s; shown here with this work tree's files.\n",
		c.Worktree, c.Worktree, map[bool]string{true: "HEAD", false: display.Printable(c.Base)}[c.Base == ""])
	return here, nil
}

// inWorktree explains a prompt file missing in a loop's worktree: the worktree has what is
// committed on its branch, not the files of the work tree the command ran in.
func (c *LoopCmd) inWorktree(err error) error {
	var missing *prompts.MissingError
	if c.Worktree == "" || !errors.As(err, &missing) {
		return err
	}
	return hints.Wrap(err, "a loop's worktree holds what is committed on its branch ralph/%s, not your uncommitted files: write %s there (and .ralph/config.toml if you use one), or commit them before you start a loop",
		c.Worktree, filepath.Base(missing.Path))
}

// describeBase says what a worktree loop started from: "from main at 1a2b3c4".
func describeBase(branch, commit string) string {
	if branch == "" {
		return "from " + display.ShortHash(commit)
	}
	return fmt.Sprintf("from %s at %s", strings.TrimPrefix(branch, "refs/heads/"), display.ShortHash(commit))
}

// loopRoot is the work tree of the loop a per-loop command acts on: the one named by
// --loop, else the one the command runs in.
func loopRoot(ctx context.Context, name string) (string, error) {
	here, err := repoRoot(ctx)
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

// LoopFlag is --loop, which the commands that act on one loop share.
type LoopFlag struct {
	Loop string `name:"loop" help:"Act on the loop NAME ('git ralph runs' lists them; main is the main work tree's) instead of this work tree's." placeholder:"NAME"`
}

// root is the work tree of the loop the command acts on.
func (f LoopFlag) root(ctx context.Context) (string, error) { return loopRoot(ctx, f.Loop) }
