package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// BestOfFlags are the flags of `loop --best-of N`; the other flags of loop go to every
// candidate as they are.
type BestOfFlags struct {
	BestOf *int   `name:"best-of" help:"Run N candidate loops NAME-1 … NAME-N (NAME: --worktree, default best-of) on the same prompt, each in its own worktree, then rank them and name the best." placeholder:"N"`
	Jobs   int    `help:"With --best-of: run at most J candidates at a time (default: the machine's cores, at most N)." placeholder:"J"`
	Score  string `help:"With --best-of: a command run in each candidate's worktree once all have ended; it prints one number, higher is better." placeholder:"CMD"`
}

// bestOfOnly are the flags a candidate does not get: the best-of's own, and --worktree,
// which the candidate gets with its own name.
var bestOfOnly = map[string]bool{"best-of": true, "jobs": true, "score": true, "worktree": true, "merge": true}

// checkBestOf refuses best-of flags that cannot apply.
func (c *LoopCmd) checkBestOf() error {
	switch {
	case c.BestOf == nil && (c.Jobs != 0 || c.Score != ""):
		return hints.Wrap(errors.New("--jobs and --score need --best-of N"), "e.g. git ralph loop --best-of 3 --score 'CMD'")
	case c.BestOf == nil:
		return nil
	case c.Jobs < 0:
		return hints.Wrap(fmt.Errorf("--jobs %d: must be at least 1", c.Jobs), "leave it out to run as many candidates at a time as the machine has cores")
	case c.JSON:
		return hints.Wrap(errors.New("--best-of has no JSON form"), "run 'git ralph loop --worktree NAME-k --json' for one candidate, or 'git ralph runs --json'")
	case c.DryRun:
		return hints.Wrap(errors.New("--best-of has no dry run"), "'git ralph loop --dry-run' shows the prompt every candidate gets")
	}
	return nil
}

// runBestOf runs the candidates as child git-ralph processes, each `loop --worktree
// NAME-k` with this command's other flags, then ranks them. Candidates that ended
// already (a best-of run again after an interruption) are not run again.
func (c *LoopCmd) runBestOf(ctx context.Context, s Streams, in *interrupts) error {
	here, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	name := c.Worktree
	if name == "" {
		name = fleet.DefaultBestOfName
	}
	names, err := fleet.CandidateNames(name, *c.BestOf)
	if err != nil {
		return err
	}
	args, err := candidateArgs(c)
	if err != nil {
		return err
	}
	todo, err := fleet.Unfinished(ctx, here, names)
	if err != nil {
		return err
	}
	if len(todo) > 0 { // all ended: only the ranking again, which needs no agent
		if err := c.bestOfPreflight(s, here); err != nil {
			return err
		}
	}
	sayPlan(s.Stderr, names, todo, c.jobs())
	keepGroup(ctx, s.Stderr, here, name, names, todo, c.Score)
	if err := runCandidates(ctx, s, in, here, todo, c.jobs(), args); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return stoppedBestOf(ctx, s.Stderr, here, names)
	}
	winner, err := rankBestOf(ctx, s.Stdout, s.Stderr, here, name, names, c.Score)
	if err != nil || !c.Merge {
		return err
	}
	// the queue validates the merged result, so a winner whose own validation failed
	// cannot reach the base branch either
	fmt.Fprintf(s.Stdout, "Merging %s through the merge queue (--merge)\n", winner)
	merge := &MergeCmd{Name: winner, Notify: c.Notify}
	if c.Validate != "" { // the candidates' --validate; else the validate setting of the main work tree, which the preflight approved
		merge.Validate = &c.Validate
	}
	return merge.queue(ctx, s, here, nil, in.hurry)
}

// runCandidates runs each candidate of todo as a child `git-ralph loop --worktree NAME-k`
// with args, at most jobs at a time, their lines marked with their names; it returns when
// all have ended, or, after a Ctrl+C, when the running ones have stopped.
func runCandidates(ctx context.Context, s Streams, in *interrupts, here string, todo []string, jobs int, args []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding git-ralph's own program to run the candidates: %w", err)
	}
	outs, errs := fleet.NewPrefixed(s.Stdout), fleet.NewPrefixed(s.Stderr)
	results := fleet.RunEach(ctx, todo, jobs, func(ctx context.Context, cand string) error {
		cmd := exec.Command(exe, append([]string{"loop", "--worktree", cand}, args...)...)
		cmd.Dir = here
		stdout, stderr := outs.Writer("["+cand+"] "), errs.Writer("["+cand+"] ")
		defer stdout.Close()
		defer stderr.Close()
		cmd.Stdout, cmd.Stderr = stdout, stderr
		return fleet.RunChild(ctx, in.hurry, cmd)
	})
	for _, cand := range todo {
		var exit *exec.ExitError // a candidate's own exit code: its lines said why
		if err := results[cand]; err != nil && !errors.As(err, &exit) && ctx.Err() == nil {
			fmt.Fprintf(s.Stderr, "warning: the candidate %s did not run: %s\n", cand, display.PrintableText(err.Error()))
		}
	}
	return nil
}

// bestOfPreflight checks, once for all candidates, the settings, the agent and the trust
// of the commands as the main work tree's configuration gives them, so that a mistake is
// told once rather than by every candidate, and an approval is asked here, where the
// terminal is (a candidate's worktree shares the main tree's approvals). The prompt is
// left to each candidate: its worktree holds what is committed, which it checks and explains.
func (c *LoopCmd) bestOfPreflight(s Streams, here string) error {
	set, err := c.resolve(here)
	if err != nil {
		return err
	}
	if err := set.loop.Validate(); err != nil {
		return explain(err)
	}
	if check, any := set.checkAgent(); any && !check.OK {
		return hints.Wrap(errors.New(check.Problem), "%s", check.Hint)
	}
	return requireTrust(s, here, set.resolved)
}

// jobs is how many candidates run at a time.
func (c *LoopCmd) jobs() int {
	j := c.Jobs
	if j == 0 {
		j = runtime.NumCPU()
	}
	return max(1, min(j, *c.BestOf))
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

// stoppedBestOf reports an interrupted best-of: which candidates are unfinished, and how
// to resume them. Its exit code is the loop's for an interruption.
func stoppedBestOf(ctx context.Context, w io.Writer, here string, names []string) error {
	todo, err := fleet.Unfinished(context.WithoutCancel(ctx), here, names)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "git-ralph: best-of interrupted: %d of %d candidates unfinished (%s)\n", len(todo), len(names), strings.Join(todo, ", "))
	fmt.Fprintln(w, "git-ralph: run the same command again to resume them; the candidates that ended are not run again")
	return exitCode(130)
}

// rankBestOf measures the candidates of the group name, prints them best first, keeps
// the ranking (for watch, serve and the next look) and names the winner, whose name it
// returns.
func rankBestOf(ctx context.Context, w, errw io.Writer, here, name string, names []string, score string) (string, error) {
	list := fleet.MeasureAll(ctx, here, names, score)
	if ctx.Err() != nil { // a Ctrl+C stopped the score commands: their failures mean nothing
		fmt.Fprintln(errw, "git-ralph: best-of interrupted while ranking; every candidate has ended: run the same command again to rank them")
		return "", exitCode(130)
	}
	kept := fleet.Ranking{Name: name, Candidates: names, Score: score, RankedAt: time.Now(), Ranked: list}
	if old, found, err := fleet.LoadRanking(ctx, here, name); err == nil && found {
		kept.StartedAt = old.StartedAt
	}
	if err := fleet.KeepRanking(ctx, here, kept); err != nil {
		fmt.Fprintf(errw, "warning: the ranking is not kept for watch and serve: %s\n", display.PrintableText(err.Error()))
	}
	if err := fleet.WriteTable(w, list, score != "", display.Printable); err != nil {
		return "", err
	}
	best := list[0]
	if !best.Ran() {
		return "", hints.Wrap(errors.New("no candidate ran an iteration: there is nothing to rank"), "their errors are above, each line marked with the candidate's name; fix what they say and run the same command again")
	}
	return best.Name, fleet.WriteWinner(w, best, display.Printable)
}

// candidateArgs are the loop flags c was given, spelled for a candidate's command line,
// without those of the best-of itself. They are read from the fields of LoopCmd, so that
// a flag added to loop reaches the candidates without a change here.
func candidateArgs(c *LoopCmd) ([]string, error) {
	var args []string
	v := reflect.ValueOf(*c)
	for i := 0; i < v.NumField(); i++ {
		field := v.Type().Field(i)
		if field.Anonymous || field.Tag.Get("kong") == "-" || !field.IsExported() {
			continue
		}
		name := flagName(field)
		if _, positional := field.Tag.Lookup("arg"); bestOfOnly[name] || positional { // the task goes last, below
			continue
		}
		arg, set, err := flagArg(name, v.Field(i))
		if err != nil {
			return nil, err
		}
		if set {
			args = append(args, arg)
		}
	}
	return withTask(args, c)
}

// withTask adds the task to a candidate's arguments: --task-file as an absolute path (a
// candidate runs in the repository root, not where the user is), the task itself last.
func withTask(args []string, c *LoopCmd) ([]string, error) {
	for i, a := range args {
		if file, ok := strings.CutPrefix(a, "--task-file="); ok {
			abs, err := filepath.Abs(file)
			if err != nil {
				return nil, fmt.Errorf("finding --task-file %s: %w", file, err)
			}
			args[i] = "--task-file=" + abs
		}
	}
	if c.Task != "" {
		args = append(args, "--", c.Task)
	}
	return args, nil
}

// flagName is the flag of a LoopCmd field: its name tag, else its name in kebab case.
func flagName(f reflect.StructField) string {
	if n := f.Tag.Get("name"); n != "" {
		return n
	}
	var b strings.Builder
	for i, r := range f.Name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// flagArg spells one flag's value as --name=value; set is false for a flag not given.
func flagArg(name string, v reflect.Value) (arg string, set bool, err error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false, nil
		}
		v = v.Elem()
	} else if v.IsZero() {
		return "", false, nil
	}
	if d, ok := v.Interface().(time.Duration); ok {
		return "--" + name + "=" + d.String(), true, nil
	}
	switch v.Kind() {
	case reflect.String:
		return "--" + name + "=" + v.String(), true, nil
	case reflect.Bool:
		return "--" + name + "=" + strconv.FormatBool(v.Bool()), true, nil
	case reflect.Int, reflect.Int64:
		return "--" + name + "=" + strconv.FormatInt(v.Int(), 10), true, nil
	}
	return "", false, fmt.Errorf("internal: the loop flag --%s (%s) cannot be passed to a best-of candidate", name, v.Type())
}
