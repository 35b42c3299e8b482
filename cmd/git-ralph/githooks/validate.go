package githooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// validateTailLines is how much of a failed validation's output the hook shows: the end,
// where test runners and compilers sum up.
const validateTailLines = 30

// validateKept bounds the validate command's output held in memory.
const validateKept = 64 << 10

// ErrInterrupted is the error of a validation stopped by SIGINT or SIGTERM.
var ErrInterrupted = errors.New("interrupted while validating: nothing was pushed")

// Validation is the validate command every pushed commit must pass.
type Validation struct {
	Command  string
	Timeout  time.Duration // 0 or less: loop.DefaultValidateTimeout
	Progress io.Writer     // where each validation is announced
}

// Push runs the validate command once on each commit being pushed, stopping at the
// first failure. Deletions and refs that name no commit have nothing to validate.
func (v Validation) Push(ctx context.Context, root string, updates []RefUpdate) error {
	seen := map[string]bool{}
	for _, u := range updates {
		if u.deletes() || u.LocalSHA == u.RemoteSHA || isNotes(u) {
			continue
		}
		commit, ok, err := gitops.CommitOf(ctx, root, u.LocalSHA)
		if err != nil {
			return err
		}
		if !ok || seen[commit] {
			continue
		}
		seen[commit] = true
		if err := v.commit(ctx, root, u.LocalRef, commit); err != nil {
			return err
		}
	}
	return nil
}

// commit runs the validate command on commit: in the work tree when it is that commit
// with no change, else in a temporary worktree checked out at it, since the work tree
// may hold uncommitted changes or another commit altogether.
func (v Validation) commit(ctx context.Context, root, ref, commit string) error {
	dir, cleanup, err := checkoutFor(ctx, root, commit)
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Fprintf(v.Progress, "git-ralph: validating %s (%s) with '%s'\n", ref, display.ShortHash(commit), display.Printable(v.Command))
	timeout := v.Timeout
	if timeout <= 0 {
		timeout = loop.DefaultValidateTimeout
	}
	res, err := agent.Run(ctx, agent.Spec{Command: v.Command, Dir: dir, Timeout: timeout, MaxOutput: validateKept})
	if err != nil {
		return fmt.Errorf("starting the validate command: %w", err)
	}
	if res.Interrupted {
		return ErrInterrupted
	}
	if res.ExitCode == 0 && res.Signal == 0 && !res.TimedOut {
		return nil
	}
	return v.failure(ref, commit, timeout, res)
}

// checkoutFor is a directory holding commit's files, and how to get rid of it.
func checkoutFor(ctx context.Context, root, commit string) (string, func(), error) {
	if head, err := gitops.Head(ctx, root); err == nil && head == commit {
		if clean, err := gitsnap.WorkTreeClean(ctx, root); err == nil && clean {
			return root, func() {}, nil
		}
	}
	tmp, err := os.MkdirTemp("", "git-ralph-pre-push-")
	if err != nil {
		return "", nil, fmt.Errorf("making a temporary worktree: %w", err)
	}
	dir := filepath.Join(tmp, filepath.Base(root))
	if err := gitwt.Add(ctx, root, dir, commit); err != nil {
		os.RemoveAll(tmp)
		return "", nil, err
	}
	cleanup := func() {
		// removed even after Ctrl+C: a worktree left behind would stay in `git worktree list`
		gitwt.ForceRemove(context.WithoutCancel(ctx), root, dir)
		os.RemoveAll(tmp)
	}
	return dir, cleanup, nil
}

// failure says which command failed on what, how, and the end of its output.
func (v Validation) failure(ref, commit string, timeout time.Duration, res agent.Result) error {
	how := fmt.Sprintf("exited with status %d", res.ExitCode)
	switch {
	case res.TimedOut:
		how = fmt.Sprintf("did not finish within %s (validate_timeout)", timeout)
	case res.Signal != 0:
		how = "was killed by " + loop.SignalName(res.Signal)
	}
	msg := fmt.Sprintf("validation failed for %s (%s): '%s' %s", ref, display.ShortHash(commit), display.Printable(v.Command), how)
	// redacted before the cut, which could leave the end of a key without its prefix
	if tail := lastLines(redact.String(string(res.Output)), validateTailLines); tail != "" {
		msg += "; the end of its output:\n" + strings.TrimSuffix(display.Indent(tail, "    "), "\n")
	}
	return hints.Wrap(errors.New(msg), "fix what it reports, commit, and push again")
}

// lastLines is the end of s, at most n lines, without trailing blank lines.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n \t")
}

// isNotes reports whether u pushes git notes (the ledger, refs/notes/ralph): their
// commits hold notes, not the project's code, so there is nothing to validate.
func isNotes(u RefUpdate) bool {
	return strings.HasPrefix(u.LocalRef, "refs/notes/") && strings.HasPrefix(u.RemoteRef, "refs/notes/")
}
