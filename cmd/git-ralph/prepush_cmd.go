package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// PrePushCmd is `git ralph pre-push`, run by the pre-push hook.
type PrePushCmd struct {
	Remote string `arg:"" optional:"" help:"The remote's name, as git gives it to the hook."`
	URL    string `arg:"" optional:"" name:"url" help:"The remote's URL, as git gives it to the hook."`
}

// skipHint closes every refusal of the hook: the user can always push anyway.
const skipHint = "to push without git-ralph's checks: git push --no-verify"

// validateTailLines is how much of a failed validation's output the hook shows: the end,
// where test runners and compilers sum up.
const validateTailLines = 30

// validateKept bounds the validate command's output held in memory.
const validateKept = 64 << 10

// refUpdate is one line git gives the pre-push hook on stdin.
type refUpdate struct {
	LocalRef, LocalSHA, RemoteRef, RemoteSHA string
}

// deletes reports whether the update deletes the remote ref: git gives a local hash of
// zeros then.
func (u refUpdate) deletes() bool { return strings.Trim(u.LocalSHA, "0") == "" }

// Run refuses to push the branch a loop is working on, then validates the commits being
// pushed when a validate command is configured. With nothing configured and no loop
// running it reads a few files and returns: it runs on every push.
func (c *PrePushCmd) Run(ctx context.Context, s Streams) error {
	err := c.check(ctx, s)
	if err != nil && !isExit(err) {
		return withSkipHint(err)
	}
	return err
}

// check does Run's work; Run adds the way around it to every refusal.
func (c *PrePushCmd) check(ctx context.Context, s Streams) error {
	root, err := prePushRoot(ctx)
	if err != nil {
		return err
	}
	updates, err := readUpdates(s.Stdin)
	if err != nil {
		return err
	}
	if isTerminal(s.Stdin) {
		if updates, err = headUpdate(ctx, root); err != nil {
			return err
		}
	}
	if isAutoPush() {
		return nil // the loop's own push, of commits that passed its validation
	}
	if err := refuseMidIteration(ctx, root, updates); err != nil {
		return err
	}
	cfg, err := loadConfig(root, nil)
	if err != nil || strings.TrimSpace(cfg.Validate.V) == "" {
		return err
	}
	if cfg.Validate.Origin.Kind == config.FromRepo {
		if err := requireTrust(s, root, cfg); err != nil {
			return err
		}
	}
	return validatePush(ctx, s, root, cfg, updates)
}

// prePushRoot is the work tree being pushed from. git runs hooks at its top, so a look
// for .git is enough there and costs no git process; anywhere else git is asked.
func prePushRoot(ctx context.Context) (string, error) {
	dir, err := workDir()
	if err != nil {
		return "", err
	}
	if root, ok := gitops.QuickRoot(dir); ok {
		return root, nil
	}
	return repoRoot(ctx)
}

// readUpdates parses the ref lines git writes to the hook's stdin; a terminal gives none.
func readUpdates(r io.Reader) ([]refUpdate, error) {
	if isTerminal(r) {
		return nil, nil
	}
	var updates []refUpdate
	lines := bufio.NewScanner(r)
	for n := 1; lines.Scan(); n++ {
		f := strings.Fields(lines.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, withHint(fmt.Errorf("line %d of stdin: %q is not a ref update", n, lines.Text()),
				"git gives the hook '<local ref> <local hash> <remote ref> <remote hash>' lines, one per ref pushed")
		}
		updates = append(updates, refUpdate{f[0], f[1], f[2], f[3]})
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("reading the refs being pushed: %w", err)
	}
	return updates, nil
}

// headUpdate stands for a push of HEAD, for `git ralph pre-push` typed by hand: it checks
// what pushing the current commit would check.
func headUpdate(ctx context.Context, root string) ([]refUpdate, error) {
	head, err := gitops.Head(ctx, root)
	if err != nil || head == "" {
		return nil, err
	}
	zero := strings.Repeat("0", len(head))
	return []refUpdate{{LocalRef: "HEAD", LocalSHA: head, RemoteRef: "", RemoteSHA: zero}}, nil
}

// isAutoPush reports whether the push is the loop's own (gitops.AutoPushEnv is set).
func isAutoPush() bool {
	name, value, _ := strings.Cut(gitops.AutoPushEnv, "=")
	return os.Getenv(name) == value
}

// refuseMidIteration fails when a loop of this work tree is in the middle of an
// iteration (its agent or its validation runs) and the push includes the branch it
// works on: what is there now is half-done work. The state file is read first; git and
// the lock are consulted only when it says an agent runs.
func refuseMidIteration(ctx context.Context, root string, updates []refUpdate) error {
	st, err := history.LoadState(root)
	if err != nil || !st.Active || st.AgentPGID == 0 {
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
	return withHint(fmt.Errorf("a git-ralph loop (pid %d, mode %s) is in the middle of iteration %d %s%s; pushing it now would publish unfinished work",
		holder.PID, st.Mode, st.Iteration+1, where, since),
		"wait for the iteration to end ('git ralph status' shows it), or stop the loop with 'git ralph cancel'")
}

// validatePush runs the validate command once on each commit being pushed, stopping at
// the first failure. Deletions and refs that name no commit have nothing to validate.
func validatePush(ctx context.Context, s Streams, root string, cfg *config.Config, updates []refUpdate) error {
	seen := map[string]bool{}
	for _, u := range updates {
		if u.deletes() || u.LocalSHA == u.RemoteSHA {
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
		if err := validateCommit(ctx, s, root, cfg, u.LocalRef, commit); err != nil {
			return err
		}
	}
	return nil
}

// validateCommit runs the validate command on commit: in the work tree when it is that
// commit with no change, else in a temporary worktree checked out at it, since the work
// tree may hold uncommitted changes or another commit altogether.
func validateCommit(ctx context.Context, s Streams, root string, cfg *config.Config, ref, commit string) error {
	dir, cleanup, err := checkoutFor(ctx, root, commit)
	if err != nil {
		return err
	}
	defer cleanup()
	command := cfg.Validate.V
	fmt.Fprintf(s.Stderr, "git-ralph: validating %s (%s) with '%s'\n", ref, shortHash(commit), printable(command))
	timeout := cfg.ValidateTimeout.V
	if timeout <= 0 {
		timeout = loop.DefaultValidateTimeout
	}
	res, err := agent.Run(ctx, agent.Spec{Command: command, Dir: dir, Timeout: timeout, MaxOutput: validateKept})
	if err != nil {
		return fmt.Errorf("starting the validate command: %w", err)
	}
	if res.Interrupted {
		return &exitError{code: exitInterrupted, err: errors.New("interrupted while validating: nothing was pushed")}
	}
	if res.ExitCode == 0 && res.Signal == 0 && !res.TimedOut {
		return nil
	}
	return validationError(ref, commit, command, timeout, res)
}

// checkoutFor is a directory holding commit's files, and how to get rid of it.
func checkoutFor(ctx context.Context, root, commit string) (string, func(), error) {
	if head, err := gitops.Head(ctx, root); err == nil && head == commit {
		if clean, err := gitops.WorkTreeClean(ctx, root); err == nil && clean {
			return root, func() {}, nil
		}
	}
	tmp, err := os.MkdirTemp("", "git-ralph-pre-push-")
	if err != nil {
		return "", nil, fmt.Errorf("making a temporary worktree: %w", err)
	}
	dir := filepath.Join(tmp, filepath.Base(root))
	if err := gitops.AddWorktree(ctx, root, dir, commit); err != nil {
		os.RemoveAll(tmp)
		return "", nil, err
	}
	cleanup := func() {
		// removed even after Ctrl+C: a worktree left behind would stay in `git worktree list`
		gitops.RemoveWorktree(context.WithoutCancel(ctx), root, dir)
		os.RemoveAll(tmp)
	}
	return dir, cleanup, nil
}

// validationError says which command failed on what, how, and the end of its output.
func validationError(ref, commit, command string, timeout time.Duration, res agent.Result) error {
	how := fmt.Sprintf("exited with status %d", res.ExitCode)
	switch {
	case res.TimedOut:
		how = fmt.Sprintf("did not finish within %s (validate_timeout)", timeout)
	case res.Signal != 0:
		how = fmt.Sprintf("was killed by signal %d (%s)", int(res.Signal), res.Signal)
	}
	msg := fmt.Sprintf("validation failed for %s (%s): '%s' %s", ref, shortHash(commit), printable(command), how)
	if tail := lastLines(string(res.Output), validateTailLines); tail != "" {
		msg += "; the end of its output:\n" + strings.TrimSuffix(indent(tail, "    "), "\n")
	}
	return withHint(errors.New(msg), "fix what it reports, commit, and push again")
}

// lastLines is the end of s, at most n lines, without trailing blank lines.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n \t")
}

// withSkipHint adds skipHint to err's hint, or gives it one.
func withSkipHint(err error) error {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return withHint(err, "%s\n%s", h.Hint(), skipHint)
	}
	return withHint(err, "%s", skipHint)
}
