package main

import (
	"context"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// DiscardCmd is `git ralph discard NAME`.
type DiscardCmd struct {
	Name  string `arg:"" name:"name" help:"The worktree loop to discard ('git ralph runs' lists them)."`
	Force bool   `help:"Remove the worktree even when it holds files no commit keeps (changed, untracked or ignored ones)."`
}

// Run removes the loop's worktree and branch, keeping the branch's last commit.
func (c *DiscardCmd) Run(ctx context.Context, s Streams) error {
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	if err := recoverMerges(ctx, s, here); err != nil { // its scratch worktree, its entry
		return err
	}
	d, err := fleet.Discard(ctx, here, c.Name, c.Force, time.Now())
	if err != nil {
		return err
	}
	printDiscarded(s, d)
	return nil
}

// printDiscarded says what went and how to bring it back.
func printDiscarded(s Streams, d fleet.Discarded) {
	for _, p := range d.Removed {
		fmt.Fprintf(s.Stderr, "git-ralph: removed %s (--force)\n", display.Printable(p))
	}
	where := "its worktree was gone already"
	if d.Path != "" {
		where = "removed its worktree " + display.Printable(d.Path)
	}
	if d.Backup == "" {
		fmt.Fprintf(s.Stdout, "Discarded the loop %s: %s; its branch was gone already.\n", d.Name, where)
		return
	}
	fmt.Fprintf(s.Stdout, "Discarded the loop %s: %s, and its branch ralph/%s; its last commit %s is kept at %s.\n",
		d.Name, where, d.Name, display.ShortHash(d.Commit), d.Backup)
	if d.HeadBackup != "" {
		fmt.Fprintf(s.Stdout, "Its worktree was on another commit than the branch; that one is kept at %s.\n", d.HeadBackup)
	}
	fmt.Fprintf(s.Stdout, "To bring it back: %s\n", d.Restore())
}
