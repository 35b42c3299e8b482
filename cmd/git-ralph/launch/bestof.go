package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// CheckBestOf refuses the flags of `loop --best-of N` (n, jobs, score) that cannot apply,
// alone or with o.
func (o *Options) CheckBestOf(n *int, jobs int, score string) error {
	switch {
	case n == nil && (jobs != 0 || score != ""):
		return hints.Wrap(errors.New("--jobs and --score need --best-of N"), "e.g. git ralph loop --best-of 3 --score 'CMD'")
	case n == nil:
		return nil
	case jobs < 0:
		return hints.Wrap(fmt.Errorf("--jobs %d: must be at least 1", jobs), "leave it out to run as many candidates at a time as the machine has cores")
	case o.JSON:
		return hints.Wrap(errors.New("--best-of has no JSON form"), "run 'git ralph loop --worktree NAME-k --json' for one candidate, or 'git ralph runs --json'")
	case o.DryRun:
		return hints.Wrap(errors.New("--best-of has no dry run"), "'git ralph loop --dry-run' shows the prompt every candidate gets")
	}
	return nil
}

// BestOf is the start of `loop --best-of N`: the candidates NAME-1 … NAME-N, each a child
// loop with the same flags, task and prompt in a worktree of its own.
type BestOf struct {
	Streams
	Signals Signals
	Trust   Trust
	Name    string    // the group, --worktree (default: fleet.DefaultBestOfName)
	N       int       // --best-of
	Jobs    int       // --jobs, 0 for the machine's cores
	Score   string    // --score
	Child   ChildLoop // every candidate's command line, but its --worktree
	Options Options   // the loop's options, for the preflight
}

// Start returns those of the candidates names that have not ended yet (a best-of run
// again after an interruption), having checked their settings once and said the plan.
func (b *BestOf) Start(ctx context.Context, here string, names []string) ([]string, error) {
	todo, err := fleet.Unfinished(ctx, here, names)
	if err != nil {
		return nil, err
	}
	if len(todo) > 0 { // all ended: only the ranking again, which needs no agent
		if err := b.preflight(here); err != nil {
			return nil, err
		}
	}
	sayPlan(b.Stderr, names, todo, b.jobs())
	return todo, nil
}

// RunCandidates runs each candidate of todo as a child loop in its worktree, at most
// jobs at a time, their lines marked with their names; it returns when all have ended,
// or, after a Ctrl+C, when the running ones have stopped. A candidate that could not
// start is a warning; one that failed said why in its own lines.
func (b *BestOf) RunCandidates(ctx context.Context, here string, todo []string) {
	outs, errs := fleet.NewPrefixed(b.Stdout), fleet.NewPrefixed(b.Stderr)
	results := fleet.RunEach(ctx, todo, b.jobs(), func(ctx context.Context, cand string) error {
		child := b.Child
		child.Worktree = cand
		cmd, err := child.Command(here)
		if err != nil {
			return err
		}
		stdout, stderr := outs.Writer("["+cand+"] "), errs.Writer("["+cand+"] ")
		defer stdout.Close()
		defer stderr.Close()
		cmd.Stdout, cmd.Stderr = stdout, stderr
		return fleet.RunChild(ctx, b.Signals.Hurry, cmd)
	})
	for _, cand := range todo {
		var exit *exec.ExitError // a candidate's own exit code: its lines said why
		if err := results[cand]; err != nil && !errors.As(err, &exit) && ctx.Err() == nil {
			fmt.Fprintf(b.Stderr, "warning: the candidate %s did not run: %s\n", cand, display.PrintableText(err.Error()))
		}
	}
}

// preflight checks, once for all candidates, the settings, the agent and the trust of
// the commands as the main work tree's configuration gives them, so that a mistake is
// told once rather than by every candidate, and an approval is asked here, where the
// terminal is (a candidate's worktree shares the main tree's approvals). The prompt is
// left to each candidate: its worktree holds what is committed, which it checks and explains.
func (b *BestOf) preflight(here string) error {
	set, err := Resolve(here, &b.Options)
	if err != nil {
		return err
	}
	if err := set.Loop.Validate(); err != nil {
		return Explain(err)
	}
	if check, any := set.CheckAgent(); any && !check.OK {
		return hints.Wrap(errors.New(check.Problem), "%s", check.Hint)
	}
	return b.Trust.Require(here, set.Resolved)
}

// jobs is how many candidates run at a time.
func (b *BestOf) jobs() int {
	j := b.Jobs
	if j == 0 {
		j = runtime.NumCPU()
	}
	return max(1, min(j, b.N))
}

// sayPlan tells which candidates run, and which ended before.
func sayPlan(w io.Writer, names, todo []string, jobs int) {
	running := map[string]bool{}
	for _, n := range todo {
		running[n] = true
	}
	for _, n := range names {
		if !running[n] {
			fmt.Fprintf(w, "git-ralph: best-of: %s ended already; it is not run again\n", n)
		}
	}
	if len(todo) > 0 {
		fmt.Fprintf(w, "git-ralph: best-of %d: running %s, %d at a time\n", len(names), strings.Join(todo, ", "), min(jobs, len(todo)))
	}
}

// StoppedBestOf reports an interrupted best-of: which candidates are unfinished, and how
// to resume them. Its exit code is the loop's for an interruption.
func StoppedBestOf(ctx context.Context, w io.Writer, here string, names []string) error {
	todo, err := fleet.Unfinished(context.WithoutCancel(ctx), here, names)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "git-ralph: best-of interrupted: %d of %d candidates unfinished (%s)\n", len(todo), len(names), strings.Join(todo, ", "))
	fmt.Fprintln(w, "git-ralph: run the same command again to resume them; the candidates that ended are not run again")
	return exitcode.Quiet(exitcode.Interrupted)
}
