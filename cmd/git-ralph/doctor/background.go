package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// backgroundCheck: how many repositories the user's registry holds (the ones `runs
// --all` lists), and which loops of this repository run in the background now (a loop
// that holds its lock from a session of its own, as --background starts it). Never a
// failure: it says what runs where nobody watches.
func backgroundCheck(ctx context.Context, in Input) Result {
	const name = "background"
	repos, err := history.UserRepos()
	var list []string
	if err == nil {
		list, err = repos.List()
	}
	if err != nil {
		return warn(name, "the registry of repositories cannot be read: "+display.Printable(err.Error()), "'git ralph runs --all' says more")
	}
	registered := fmt.Sprintf("%d %s registered for 'git ralph runs --all'", len(list), map[bool]string{true: "repository", false: "repositories"}[len(list) == 1])
	members, _, err := fleet.Members(ctx, in.Root)
	if err != nil {
		return warn(name, registered+"; this repository's loops cannot be listed: "+display.Printable(err.Error()), "'git ralph runs' says more")
	}
	var running []string
	for _, r := range status.RunsOf(ctx, in.Root, members, in.Now) {
		if r.PID != 0 && sessionLeader(r.PID) {
			running = append(running, fmt.Sprintf("%s (pid %d)", display.Printable(r.Name), r.PID))
		}
	}
	if len(running) == 0 {
		return ok(name, registered+"; no loop of this repository runs in the background")
	}
	return ok(name, registered+"; running in the background here: "+strings.Join(running, ", "))
}
