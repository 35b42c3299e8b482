package main

import (
	"context"
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// TrustCmd is `git ralph trust`.
type TrustCmd struct {
	Revoke bool `help:"Withdraw the approvals of this repository's commands: its config's and its workflow files'."`
	Yes    bool `short:"y" help:"Approve without asking, even on a terminal."`
}

// Run shows the commands this repository's config would run and records the user's
// approval of exactly those.
func (c *TrustCmd) Run(ctx context.Context, s Streams) error {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	store := trust.User()
	if c.Revoke {
		return revokeAll(s, store, root)
	}
	resolved, err := launch.LoadConfig(root, nil)
	if err != nil {
		return err
	}
	cmds := resolved.RepoCommands()
	if len(cmds) == 0 {
		fmt.Fprintf(s.Stdout, "%s sets no commands: there is nothing to trust\n", config.RepoFile)
		return nil
	}
	trust.Show(s.Stdout, cmds)
	if err := c.approved(s); err != nil {
		return err
	}
	if err := store.Approve(root, cmds, time.Now()); err != nil {
		return trust.Explain(err)
	}
	fmt.Fprintf(s.Stdout, "trusted: recorded in %s; any change to them asks again\n", store.Path())
	return nil
}

// revokeAll withdraws the approval of the repository's config and of its workflow files:
// a user who takes back their trust in a repository means all of it.
func revokeAll(s Streams, store *trust.Store, root string) error {
	gone, err := store.Revoke(root)
	if err != nil {
		return trust.Explain(err)
	}
	files, err := store.RevokeWithin(root, workflow.Dir)
	if err != nil {
		return trust.Explain(err)
	}
	if gone {
		files = append([]string{config.RepoFile}, files...)
	}
	for _, f := range files {
		fmt.Fprintf(s.Stdout, "revoked: git ralph will not run the commands of %s until you trust them again\n", display.Printable(f))
	}
	if len(files) == 0 {
		fmt.Fprintf(s.Stdout, "nothing to revoke: this repository was not trusted\n")
	}
	return nil
}

// approved asks on a terminal unless --yes was given (trust.Terminal.Approved).
func (c *TrustCmd) approved(s Streams) error {
	return s.terminal().Approved(c.Yes, "git ralph trust --yes")
}
