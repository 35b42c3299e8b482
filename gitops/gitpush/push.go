package gitpush

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
)

// Target is where auto-push sends the current branch.
type Target struct {
	Remote string
	Branch string // the branch on the remote
	Local  string // the branch checked out here
}

func (t Target) String() string { return t.Remote + "/" + t.Branch }

// Timeout bounds one push (and a fetch of notes): a remote that stops answering must not hang a loop that
// nobody watches (a variable for tests).
var Timeout = 5 * time.Minute

// AutoPushEnv is set in the environment of git-ralph's own pushes, so that the pre-push
// hook can tell them from a push by the user or the agent.
const AutoPushEnv = "GIT_RALPH_AUTOPUSH=1"

// ResolveTarget fills in what the configuration left empty: the remote is the
// branch's upstream remote, else origin; the remote branch is the upstream branch, else
// the local branch's name. The remote must exist.
func ResolveTarget(ctx context.Context, dir, remote, branch string) (Target, error) {
	local, err := gitops.CurrentBranch(ctx, dir)
	if err != nil {
		return Target{}, err
	}
	t := Target{Remote: remote, Branch: branch, Local: local}
	if t.Remote == "" {
		t.Remote, _ = gitops.Git(ctx, dir, "config", "--get", "branch."+local+".remote")
		if t.Remote == "" || t.Remote == "." {
			t.Remote = "origin"
		}
	}
	if t.Branch == "" {
		merge, _ := gitops.Git(ctx, dir, "config", "--get", "branch."+local+".merge")
		t.Branch = strings.TrimPrefix(merge, "refs/heads/")
		if t.Branch == "" || remote != "" && remote != t.Remote {
			t.Branch = local
		}
	}
	if _, err := gitops.Git(ctx, dir, "remote", "get-url", t.Remote); err != nil {
		return t, fmt.Errorf("%w: %q", ErrNoRemote, t.Remote)
	}
	return t, nil
}

// ErrNoRemote means the push target names a remote the repository does not have.
var ErrNoRemote = errors.New("no such remote")

// Push sends HEAD to the target branch, never forcing. The error carries git's own
// message (a rejected non-fast-forward, an unreachable remote, …).
func Push(ctx context.Context, dir string, t Target) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	_, err := gitops.GitEnv(ctx, dir, []string{AutoPushEnv}, "push", t.Remote, "HEAD:refs/heads/"+t.Branch)
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("git push %s: no answer within %s", t, Timeout)
	}
	var gitErr *gitops.Error
	if errors.As(err, &gitErr) {
		return fmt.Errorf("git push to %s failed: %s", t, Reason(gitErr.Stderr))
	}
	return err
}

// Reason keeps the lines of git's stderr that say what went wrong, without the
// generic advice git adds.
func Reason(stderr string) string {
	var keep []string
	for line := range strings.SplitSeq(stderr, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "hint:") {
			continue
		}
		keep = append(keep, line)
	}
	if len(keep) == 0 {
		return "no message from git"
	}
	return strings.Join(keep, "; ")
}
