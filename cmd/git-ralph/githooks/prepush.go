package githooks

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
	"github.com/git-ralph/git-ralph/history"
)

// RefUpdate is one line git gives the pre-push hook on stdin.
type RefUpdate struct {
	LocalRef, LocalSHA, RemoteRef, RemoteSHA string
}

// deletes reports whether the update deletes the remote ref: git gives a local hash of
// zeros then.
func (u RefUpdate) deletes() bool { return strings.Trim(u.LocalSHA, "0") == "" }

// ReadUpdates parses the ref lines git writes to the hook's stdin.
func ReadUpdates(r io.Reader) ([]RefUpdate, error) {
	var updates []RefUpdate
	lines := bufio.NewScanner(r)
	for n := 1; lines.Scan(); n++ {
		f := strings.Fields(lines.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, hints.Wrap(fmt.Errorf("line %d of stdin: %q is not a ref update", n, lines.Text()),
				"git gives the hook '<local ref> <local hash> <remote ref> <remote hash>' lines, one per ref pushed")
		}
		updates = append(updates, RefUpdate{f[0], f[1], f[2], f[3]})
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("reading the refs being pushed: %w", err)
	}
	return updates, nil
}

// HeadUpdate stands for a push of HEAD, for `git ralph pre-push` typed by hand: it checks
// what pushing the current commit would check.
func HeadUpdate(ctx context.Context, root string) ([]RefUpdate, error) {
	head, err := gitops.Head(ctx, root)
	if err != nil || head == "" {
		return nil, err
	}
	zero := strings.Repeat("0", len(head))
	return []RefUpdate{{LocalRef: "HEAD", LocalSHA: head, RemoteRef: "", RemoteSHA: zero}}, nil
}

// IsAutoPush reports whether the push is the loop's own (gitpush.AutoPushEnv is set).
func IsAutoPush() bool {
	name, value, _ := strings.Cut(gitpush.AutoPushEnv, "=")
	return os.Getenv(name) == value
}

// RefuseMidIteration fails when a loop of this work tree is in the middle of an
// iteration (its agent or its validation runs) and the push includes the branch it
// works on: what is there now is half-done work. The state file is read first; git and
// the lock (at lockPath) are consulted only when it says an iteration is under way.
func RefuseMidIteration(ctx context.Context, root string, lockPath func(context.Context, string) (string, error), updates []RefUpdate) error {
	st, err := history.LoadState(root)
	if err != nil || !st.Active || st.AgentPGID == 0 && !st.InIteration {
		return nil // an unreadable state says nothing about a running loop
	}
	path, err := lockPath(ctx, root)
	if err != nil {
		return err
	}
	holder, held, err := history.ReadHolder(path)
	if err != nil || !held {
		return err // a loop that died leaves its state behind, and holds nothing
	}
	branch, err := gitops.CurrentBranch(ctx, root)
	if err != nil && !errors.Is(err, gitops.ErrDetached) {
		return err
	}
	for _, u := range updates {
		if !u.deletes() && (u.LocalRef == "HEAD" || branch != "" && u.LocalRef == "refs/heads/"+branch) {
			return midIterationError(st, holder, branch)
		}
	}
	return nil
}

// midIterationError names the loop and the iteration the push would cut into.
func midIterationError(st history.State, holder history.Holder, branch string) error {
	where := "on branch " + branch
	if branch == "" {
		where = "on the detached HEAD"
	}
	since := ""
	if !st.AgentStartedAt.IsZero() {
		since = ", since " + st.AgentStartedAt.Local().Format(time.TimeOnly)
	}
	return hints.Wrap(fmt.Errorf("a git-ralph loop (pid %d, mode %s) is in the middle of iteration %d %s%s; pushing it now would publish unfinished work",
		holder.PID, st.Mode, st.Iteration+1, where, since),
		"wait for the iteration to end ('git ralph status' shows it), or stop the loop with 'git ralph cancel'")
}
