package status

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// ErrNoLoop is RunningLoop's error when no loop holds the repository's lock.
var ErrNoLoop = errors.New("no loop is running in this repository")

// RunningLoop is the holder of the lock of the work tree root, if it is a process this
// command can signal: one on this host.
func RunningLoop(ctx context.Context, root string) (history.Holder, error) {
	path, err := gitops.GitPath(ctx, root, history.LockFile)
	if err != nil {
		return history.Holder{}, err
	}
	holder, held, err := history.ReadHolder(path)
	switch {
	case err != nil:
		return history.Holder{}, err
	case !held:
		return history.Holder{}, hints.Wrap(ErrNoLoop,
			"'git ralph status' shows how the last run ended")
	case holder.PID <= 0:
		return history.Holder{}, hints.Wrap(fmt.Errorf("a loop holds %s but its pid could not be read", path),
			"it may be starting or stopping: try again in a moment")
	}
	if host, _ := os.Hostname(); holder.Host != "" && holder.Host != host {
		return history.Holder{}, hints.Wrap(fmt.Errorf("the loop runs on host %s (pid %d), not on this host (%s)", holder.Host, holder.PID, host),
			"run 'git ralph cancel' on %s", holder.Host)
	}
	return holder, nil
}
