package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrNotRepo means the directory is not inside a git work tree.
var ErrNotRepo = errors.New("not a git repository")

// ErrGitMissing means no git program was found on PATH.
var ErrGitMissing = errors.New("git not found on PATH")

// baseArgs keep every git call scriptable: no colours, no pager, no external diff drivers,
// and no optional index refreshes that would take git's lock while the agent works. The
// repository's config is the agent's to write, so the settings that run a program on a read
// are switched off where that changes no answer: core.fsmonitor (only a cache of what
// changed; an agent that set it to `sleep 30` made every `git status` hang).
var baseArgs = []string{"--no-optional-locks", "-c", "color.ui=false", "-c", "core.pager=cat", "-c", "core.fsmonitor=false"}

// noHooks points git at a hooks directory that cannot exist, for every command but push
// (the user's pre-push hook is the user's policy) and rev-parse (which runs no hook, and
// whose `--git-path hooks` must still find the real directory). git-ralph's own ref
// updates, index writes and commits must not run a reference-transaction, post-checkout or
// post-commit hook the agent wrote.
var noHooks = []string{"-c", "core.hooksPath=/dev/null"}

// CallTimeout bounds every git command git-ralph runs: a hostile filter, hook or config
// can make git wait forever, and a loop that runs unattended must not wait with it. It is
// generous because a legitimate git on a huge repository can take minutes; tests shorten it.
var CallTimeout = 10 * time.Minute

// PushTimeout is the bound of `git push` instead, which may send a large history over a
// slow link.
var PushTimeout = time.Hour

// stopGrace is how long a cancelled git gets after SIGTERM, which lets it remove its lock
// files, before its whole process group is killed.
const stopGrace = 2 * time.Second

// ErrGitHung is found (errors.Is) in the error of a git command that outlived CallTimeout.
var ErrGitHung = errors.New("git did not finish in time")

// Error is a failed git command with what it printed on stderr.
type Error struct {
	Args     []string
	ExitCode int
	Stderr   string
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.ExitCode)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// Git runs the git CLI in dir and returns its stdout with the trailing newline removed.
func Git(ctx context.Context, dir string, args ...string) (string, error) {
	return GitEnv(ctx, dir, nil, args...)
}

// GitEnv is Git with extra environment variables, which win over the inherited ones.
func GitEnv(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	var stdout bytes.Buffer
	if err := GitTo(ctx, dir, env, nil, &stdout, args...); err != nil {
		return "", err
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

// GitTo runs git in dir, with stdin when it is not nil, and streams its stdout to w as it
// comes. When w fails, that error is returned rather than git's death by a broken pipe.
//
// git runs in a process group of its own, bounded by CallTimeout and by ctx: when either
// ends, the group (git and whatever hook, filter or helper it started) gets SIGTERM, then
// SIGKILL after stopGrace, and git-ralph stops waiting for the pipes such a process holds.
func GitTo(ctx context.Context, dir string, env []string, stdin io.Reader, w io.Writer, args ...string) error {
	ctx, cancel := context.WithTimeoutCause(ctx, bound(args), ErrGitHung)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", gitArgs(args)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"), env...)
	out := &stickyWriter{w: w}
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, out, &stderr
	err := runBounded(ctx, cmd)
	if ctx.Err() != nil {
		return stopped(ctx, args)
	}
	if out.err != nil {
		return fmt.Errorf("writing the output of git %s: %w", strings.Join(args, " "), out.err)
	}
	if errors.Is(err, exec.ErrNotFound) {
		return ErrGitMissing
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return &Error{Args: args, ExitCode: exit.ExitCode(), Stderr: stderr.String()}
	}
	if err != nil {
		return fmt.Errorf("running git %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// gitArgs puts git-ralph's fixed settings before a command's own arguments.
func gitArgs(args []string) []string {
	all := append([]string{}, baseArgs...)
	if sub := subcommand(args); len(args) > 0 && sub != "push" && sub != "rev-parse" {
		all = append(all, noHooks...)
	}
	return append(all, args...)
}

// runBounded runs cmd in its own process group until it exits or ctx ends. Then the group
// gets SIGTERM; stopGrace later git is killed and its pipes are closed (a process that left
// the group may hold them), and whatever is left of the group gets SIGKILL. A git that
// exits but leaves a background process holding its pipes is waited for stopGrace at most.
func runBounded(ctx context.Context, cmd *exec.Cmd) error {
	ownGroup(cmd)
	cmd.Cancel = func() error { return signalGroup(cmd.Process, false) }
	cmd.WaitDelay = stopGrace
	err := cmd.Run()
	if ctx.Err() != nil && cmd.Process != nil {
		signalGroup(cmd.Process, true) // a member that ignored SIGTERM must not live on
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		return nil // git itself succeeded; only a leftover of a hook held the pipes
	}
	return err
}

// stopped is the error of a git command that ctx ended: its bound, or the loop's
// cancellation (Ctrl+C), whose cause it names.
func stopped(ctx context.Context, args []string) error {
	name := "git " + subcommand(args)
	cause := context.Cause(ctx)
	if errors.Is(cause, ErrGitHung) {
		return fmt.Errorf("%s ran longer than %s and was stopped (a hook, filter or setting of this repository may wait forever): %w", name, bound(args), ErrGitHung)
	}
	return fmt.Errorf("%s stopped: %w (%w)", name, cause, ctx.Err())
}

// bound is how long the git command args may run.
func bound(args []string) time.Duration {
	if subcommand(args) == "push" {
		return max(CallTimeout, PushTimeout)
	}
	return CallTimeout
}

// subcommand is the name of the git command args run, after any `-c name=value`.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-c":
			i++
		case !strings.HasPrefix(args[i], "-"):
			return args[i]
		}
	}
	return strings.Join(args, " ")
}

// stickyWriter remembers the first error of the writer it wraps.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// Root returns the top directory of the work tree that contains dir: read from the files
// when it is plain (see rootFromFiles), else asked of git.
func Root(ctx context.Context, dir string) (string, error) {
	if top, ok := rootFromFiles(dir); ok {
		return top, nil
	}
	out, err := Git(ctx, dir, "rev-parse", "--show-toplevel")
	var gitErr *Error
	if errors.As(err, &gitErr) && strings.Contains(gitErr.Stderr, "not a git repository") {
		return "", fmt.Errorf("%s: %w", dir, ErrNotRepo)
	}
	if err != nil {
		return "", err
	}
	if out == "" {
		return "", fmt.Errorf("%s is inside a git directory, not a work tree: %w", dir, ErrNotRepo)
	}
	return out, nil
}

// Init creates a new repository in dir with the given initial branch.
func Init(ctx context.Context, dir, branch string) error {
	_, err := Git(ctx, dir, "init", "--quiet", "--initial-branch="+branch, dir)
	return err
}

// CommitAll stages every change in the work tree and commits it with message.
// It reports false when there was nothing to commit.
func CommitAll(ctx context.Context, dir, message string) (bool, error) {
	if _, err := Git(ctx, dir, "add", "-A"); err != nil {
		return false, err
	}
	if _, err := Git(ctx, dir, "diff", "--cached", "--quiet"); err == nil {
		return false, nil
	}
	_, err := Git(ctx, dir, "commit", "--quiet", "--no-verify", "-m", message)
	return err == nil, err
}

// Log returns `git log --oneline` of HEAD, newest first.
func Log(ctx context.Context, dir string, max int) ([]string, error) {
	out, err := Git(ctx, dir, "log", "--oneline", "--no-decorate", fmt.Sprintf("--max-count=%d", max))
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}

// gitPaths caches GitPath: where a repository keeps its files does not change while
// git-ralph runs, and the answer costs a process on every checkpoint otherwise.
var gitPaths sync.Map

// GitPath is the absolute path of name inside the git directory of dir's work tree
// (`git rev-parse --git-path`): a place for files the agent cannot commit.
func GitPath(ctx context.Context, dir, name string) (string, error) {
	key := dir + "\x00" + name + "\x00" + os.Getenv("GIT_INDEX_FILE")
	if path, ok := gitPaths.Load(key); ok {
		return path.(string), nil
	}
	path, err := Git(ctx, dir, "rev-parse", "--git-path", name)
	if err != nil {
		return "", AsNotRepo(dir, fmt.Errorf("finding %s in the git directory: %w", name, err))
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	gitPaths.Store(key, path)
	return path, nil
}

// AsNotRepo turns git's "not a git repository" failure into ErrNotRepo.
func AsNotRepo(dir string, err error) error {
	var gitErr *Error
	if errors.As(err, &gitErr) && strings.Contains(gitErr.Stderr, "not a git repository") {
		return fmt.Errorf("%s: %w", dir, ErrNotRepo)
	}
	return err
}
