package trust

import (
	"bufio"
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
)

// User is the user's store, next to the user's config file.
func User() *Store {
	path := config.UserConfigPath(os.Environ())
	if path == "" {
		return Open("")
	}
	return Open(filepath.Dir(path))
}

// Explain gives an error of the store the hint that fits it.
func Explain(err error) error {
	var corrupt *CorruptError
	switch {
	case errors.As(err, &corrupt):
		return hints.Wrap(err, "%s", corrupt.Hint())
	case errors.Is(err, ErrNoStore):
		return hints.Wrap(err, "set HOME (or XDG_CONFIG_HOME), or give the commands as flags, which need no approval")
	}
	return err
}

// TrustedIn reports whether cmds are approved for the work tree root or one of alsoAt.
func (s *Store) TrustedIn(cmds map[string]string, root string, alsoAt ...string) (bool, error) {
	for _, dir := range append([]string{root}, alsoAt...) {
		if ok, err := s.Trusted(dir, cmds); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// Show lists what the user is asked to approve. Each value is shown through
// display.Printable: what the terminal shows is what will run, escape sequences included.
func Show(w io.Writer, cmds map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(cmds)) {
		fmt.Fprintf(w, "  %-28s %s\n", display.Printable(k), display.Printable(cmds[k]))
	}
}

// Terminal is where the user is asked for approvals: the command's standard input and
// error.
type Terminal struct {
	In  io.Reader
	Out io.Writer
	// Interrupted is closed by the first SIGINT or SIGTERM: a question stops waiting for
	// its answer then (nil: never).
	Interrupted <-chan struct{}
}

// Approved asks on a terminal unless yes (--yes) was given. Without a terminal to ask
// on — a pipe, a file, /dev/null — there is no answer but --yes: text piped in could come
// from anywhere, so it never approves. yesCommand is the command the hint names, the one
// that records these very approvals.
func (t Terminal) Approved(yes bool, yesCommand string) error {
	switch {
	case yes:
		return nil
	case !reporting.IsTerminal(t.In):
		return hints.Wrap(errors.New("not trusted: no terminal to ask on, nothing was recorded"),
			"read the commands above, then approve them with '%s'", yesCommand)
	case !t.confirm("Trust these commands?"):
		return errors.New("not trusted: nothing was recorded")
	}
	return nil
}

// Require requires the approval of the repository configuration's commands. The same
// commands approved in one of alsoAt (the main work tree, for a loop's worktree) count as
// approved.
func (t Terminal) Require(root string, resolved *config.Config, alsoAt ...string) error {
	return t.RequireApproval(Request{Cmds: resolved.RepoCommands(), Key: root, AlsoAt: alsoAt,
		File: config.RepoFile, Whose: "This repository's " + config.RepoFile, TrustCmd: "git ralph trust"})
}

// Trusted reports whether cmds are approved in the user's store for root or one of
// alsoAt; its error carries the hint that fits.
func (t Terminal) Trusted(cmds map[string]string, root string, alsoAt ...string) (bool, error) {
	ok, err := User().TrustedIn(cmds, root, alsoAt...)
	if err != nil {
		return false, Explain(err)
	}
	return ok, nil
}

// Request is a file's commands that must be approved before they run.
type Request struct {
	Cmds     map[string]string
	Key      string   // what the approval is recorded under
	AlsoAt   []string // other keys whose approval of the same commands counts
	File     string   // the file that sets the commands, to read them in
	Whose    string   // whose commands they are, to start the question
	TrustCmd string   // the command that approves them
}

// RequireApproval refuses to run r's commands unless the user has approved them. On a
// terminal it asks; anywhere else it denies and says what to run.
func (t Terminal) RequireApproval(r Request) error {
	store := User()
	ok, err := store.TrustedIn(r.Cmds, r.Key, r.AlsoAt...)
	if err != nil {
		return Explain(err)
	}
	if ok {
		return nil
	}
	if reporting.IsTerminal(t.In) && reporting.IsTerminal(t.Out) {
		fmt.Fprintf(t.Out, "%s would have git ralph run commands you have not approved:\n", r.Whose)
		Show(t.Out, r.Cmds)
		if t.confirm("Trust them and run?") {
			return Explain(store.Approve(r.Key, r.Cmds, time.Now()))
		}
	}
	return hints.Wrap(fmt.Errorf("%s sets commands you have not approved (%s); nothing was run", r.File, strings.Join(slices.Sorted(maps.Keys(r.Cmds)), ", ")),
		"read them in %s, then run '%s'", r.File, r.TrustCmd)
}

// confirm asks a yes/no question on the terminal; anything but y or yes is no.
func (t Terminal) confirm(question string) bool {
	fmt.Fprintf(t.Out, "%s [y/N] ", question)
	lines := make(chan string, 1)
	go func() { // a read of the terminal cannot be cancelled: left behind on Ctrl+C
		line, _ := bufio.NewReader(t.In).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		answer := strings.ToLower(strings.TrimSpace(line))
		return answer == "y" || answer == "yes"
	case <-t.Interrupted: // Ctrl+C at the question: no, and the command ends as interrupted
		fmt.Fprintln(t.Out)
		return false
	}
}
