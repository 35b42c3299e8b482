package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
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
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	store := trustStore()
	if c.Revoke {
		return revokeAll(s, store, root)
	}
	resolved, err := loadConfig(root, nil)
	if err != nil {
		return err
	}
	cmds := resolved.RepoCommands()
	if len(cmds) == 0 {
		fmt.Fprintf(s.Stdout, "%s sets no commands: there is nothing to trust\n", config.RepoFile)
		return nil
	}
	showCommands(s.Stdout, cmds)
	if err := c.approved(s); err != nil {
		return err
	}
	if err := store.Approve(root, cmds, time.Now()); err != nil {
		return trustError(err)
	}
	fmt.Fprintf(s.Stdout, "trusted: recorded in %s; any change to them asks again\n", store.Path())
	return nil
}

// revokeAll withdraws the approval of the repository's config and of its workflow files:
// a user who takes back their trust in a repository means all of it.
func revokeAll(s Streams, store *trust.Store, root string) error {
	gone, err := store.Revoke(root)
	if err != nil {
		return trustError(err)
	}
	files, err := store.RevokeWithin(root, workflow.Dir)
	if err != nil {
		return trustError(err)
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

// approved asks on a terminal unless --yes was given. Without a terminal to ask on —
// a pipe, a file, /dev/null — there is no answer but --yes: text piped in could come
// from anywhere, so it never approves.
func (c *TrustCmd) approved(s Streams) error { return approvedBy(s, c.Yes, "git ralph trust --yes") }

// approvedBy is approved for any trust command: yesCommand is the command the hint names,
// the one that records these very approvals.
func approvedBy(s Streams, yes bool, yesCommand string) error {
	switch {
	case yes:
		return nil
	case !reporting.IsTerminal(s.Stdin):
		return &exitError{code: exitFailure, err: hints.Wrap(errors.New("not trusted: no terminal to ask on, nothing was recorded"),
			"read the commands above, then approve them with '%s'", yesCommand)}
	case !confirm(s, "Trust these commands?"):
		return &exitError{code: exitFailure, err: errors.New("not trusted: nothing was recorded")}
	}
	return nil
}

// requireTrust requires the approval of the repository configuration's commands. The
// same commands approved in one of alsoAt (the main work tree, for a loop's worktree)
// count as approved.
func requireTrust(s Streams, root string, resolved *config.Config, alsoAt ...string) error {
	return requireApproval(s, approval{cmds: resolved.RepoCommands(), key: root, alsoAt: alsoAt,
		file: config.RepoFile, whose: "This repository's " + config.RepoFile, trustCmd: "git ralph trust"})
}

// approval is a file's commands that must be approved before they run.
type approval struct {
	cmds     map[string]string
	key      string   // what the approval is recorded under
	alsoAt   []string // other keys whose approval of the same commands counts
	file     string   // the file that sets the commands, to read them in
	whose    string   // whose commands they are, to start the question
	trustCmd string   // the command that approves them
}

// requireApproval refuses to run a's commands unless the user has approved them. On a
// terminal it asks; anywhere else it denies and says what to run.
func requireApproval(s Streams, a approval) error {
	store := trustStore()
	ok, err := trustedIn(store, a.cmds, a.key, a.alsoAt...)
	if err != nil {
		return trustError(err)
	}
	if ok {
		return nil
	}
	if reporting.IsTerminal(s.Stdin) && reporting.IsTerminal(s.Stderr) {
		fmt.Fprintf(s.Stderr, "%s would have git ralph run commands you have not approved:\n", a.whose)
		showCommands(s.Stderr, a.cmds)
		if confirm(s, "Trust them and run?") {
			return trustError(store.Approve(a.key, a.cmds, time.Now()))
		}
	}
	return hints.Wrap(fmt.Errorf("%s sets commands you have not approved (%s); nothing was run", a.file, strings.Join(slices.Sorted(maps.Keys(a.cmds)), ", ")),
		"read them in %s, then run '%s'", a.file, a.trustCmd)
}

// trustedIn reports whether cmds are approved for the work tree root or one of alsoAt.
func trustedIn(store *trust.Store, cmds map[string]string, root string, alsoAt ...string) (bool, error) {
	for _, dir := range append([]string{root}, alsoAt...) {
		if ok, err := store.Trusted(dir, cmds); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// showCommands lists what the user is asked to approve. Each value is shown through
// printable: what the terminal shows is what will run, escape sequences included.
func showCommands(w io.Writer, cmds map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(cmds)) {
		fmt.Fprintf(w, "  %-28s %s\n", display.Printable(k), display.Printable(cmds[k]))
	}
}

// confirm asks a yes/no question on the terminal; anything but y or yes is no.
func confirm(s Streams, question string) bool {
	fmt.Fprintf(s.Stderr, "%s [y/N] ", question)
	lines := make(chan string, 1)
	go func() { // a read of the terminal cannot be cancelled: left behind on Ctrl+C
		line, _ := bufio.NewReader(s.Stdin).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		answer := strings.ToLower(strings.TrimSpace(line))
		return answer == "y" || answer == "yes"
	case <-s.Interrupted: // Ctrl+C at the question: no, and the command ends as interrupted
		fmt.Fprintln(s.Stderr)
		return false
	}
}

// trustStore is the user's store, next to the user's config file.
func trustStore() *trust.Store {
	path := config.UserConfigPath(os.Environ())
	if path == "" {
		return trust.Open("")
	}
	return trust.Open(filepath.Dir(path))
}

func trustError(err error) error {
	var corrupt *trust.CorruptError
	switch {
	case errors.As(err, &corrupt):
		return hints.Wrap(err, "%s", corrupt.Hint())
	case errors.Is(err, trust.ErrNoStore):
		return hints.Wrap(err, "set HOME (or XDG_CONFIG_HOME), or give the commands as flags, which need no approval")
	}
	return err
}
