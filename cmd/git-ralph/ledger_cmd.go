package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/ledgerview"
	"github.com/git-ralph/git-ralph/gitops/gitnotes"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
)

// LedgerCmd is `git ralph ledger`.
type LedgerCmd struct {
	Range  []string `arg:"" optional:"" name:"range" help:"The commits to list, as git log reads them (main..HEAD, HEAD~10..); default: the current branch since its base (see docs/guide/spend-and-safety.md, the ledger in git notes)."`
	JSON   bool     `name:"json" help:"Print the ledger as one JSON object."`
	Remote string   `help:"Merge the ledger of this remote first (default: the branch's remote, else origin, when there is one)." placeholder:"R"`
}

// Run merges the remote's notes into refs/notes/ralph and prints the commits of the
// range with the loop iterations that made them and what they cost.
func (c *LedgerCmd) Run(ctx context.Context, s Streams) error {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	warn := func(msg string) { fmt.Fprintf(s.Stderr, "warning: %s\n", display.PrintableText(msg)) }
	l, err := ledgerview.Read(ctx, ledgerview.Request{Root: root, Revs: c.Range, Remote: c.Remote, Warn: warn})
	switch {
	case errors.Is(err, gitpush.ErrNoRemote):
		return hints.Wrap(err, "name one of the repository's remotes ('git remote -v'), or leave --remote out")
	case errors.Is(err, gitnotes.ErrBadRevision):
		return hints.Wrap(err, "give a range as git log reads it: main..HEAD, HEAD~10.., a branch or a commit")
	}
	if err != nil {
		return err
	}
	if c.JSON {
		return display.JSON(s.Stdout, l)
	}
	return ledgerview.Print(s.Stdout, l)
}
