package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/notify"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop/mergequeue"
)

// MergeCmd is `git ralph merge NAME`.
type MergeCmd struct {
	Name     string  `arg:"" help:"The worktree loop whose branch ralph/NAME is merged into its base branch." placeholder:"NAME"`
	Squash   bool    `help:"Land the loop's work as one squashed commit on the base branch."`
	Rebase   bool    `help:"Replay the loop's commits on top of the base branch (the base then fast-forwards)."`
	Validate *string `help:"The command the merged result must pass (default: the validate setting of the main work tree's configuration)." placeholder:"CMD"`
	Resolve  bool    `help:"First run the loop's agent in its worktree in merge mode (the built-in PROMPT_merge.md unless the branch has its own: merge the base in, resolve conflicts, make validation pass), then queue the merge if it ends with SUCCESS."`
	Agent    string  `help:"With --resolve: the agent preset to run (default: the loop's configuration)." placeholder:"NAME"`
	AgentCmd string  `name:"agent-cmd" help:"With --resolve: your own agent command to run instead (default: the loop's configuration)." placeholder:"CMD"`
	Max      *int    `help:"With --resolve: stop the agent's loop after N iterations (default: the loop's max_iterations)." placeholder:"N"`
	Notify   string  `help:"Say when the merge needs review: a comma-separated list of desktop, bell and webhook URLs, or none (default: the notify setting of the main work tree's configuration)." placeholder:"LIST"`

	// held is the settings of the loop that queues this merge (loop --merge): the merged
	// result is held to the validation the loop was held to, as the loop resolved it
	// (flag, environment, its worktree's file) and had it approved. nil for 'merge'.
	held *config.Config
}

// Run queues the merge, waits for its turn, and reports what became of it.
func (c *MergeCmd) Run(ctx context.Context, s Streams, in *interrupts) error {
	if c.Squash && c.Rebase {
		return hints.Wrap(errors.New("--squash and --rebase contradict each other"), "pick one, or neither for a merge commit (a fast-forward when possible)")
	}
	here, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	if c.Resolve {
		if err := c.resolveFirst(ctx, s, in, here); err != nil {
			return err
		}
	}
	return c.queue(ctx, s, here, nil, in.hurry)
}

// queue is merge for the commands that need only its error.
func (c *MergeCmd) queue(ctx context.Context, s Streams, here string, notes *notify.Notifier, hurry <-chan struct{}) error {
	_, err := c.merge(ctx, s, here, notes, hurry)
	return err
}

// merge runs the merge through the queue, prints its outcome and returns it. A merge
// left for review is said through notes (a loop's, with --merge), else through the notify
// setting of the main work tree, waiting for the sends (a second Ctrl+C, hurry, stops the
// wait).
func (c *MergeCmd) merge(ctx context.Context, s Streams, here string, notes *notify.Notifier, hurry <-chan struct{}) (mergequeue.Outcome, error) {
	target, err := mergequeue.Open(ctx, here, c.Name)
	if err != nil {
		return mergequeue.Outcome{}, err
	}
	req, resolved, err := c.request(s, target.MainTree())
	if err != nil {
		return mergequeue.Outcome{}, err
	}
	if notes == nil {
		notes = newNotifier(s, resolved.Notify.V, notify.Where{Repository: filepath.Base(target.MainTree()), Loop: c.Name}, nil)
		defer notes.Close(hurry)
	}
	out, err := target.Merge(ctx, req)
	for _, note := range out.Notes {
		fmt.Fprintf(s.Stderr, "git-ralph: %s\n", display.PrintableText(note))
	}
	if err != nil {
		return out, err
	}
	if out.State == "needs-review" {
		notes.Send(mergeReview(notes.Where(), c.Name, out))
	}
	return out, printMerge(s.Stdout, c.Name, out)
}

// mergeReview is the notification of a merge the queue left for review.
func mergeReview(where notify.Where, name string, out mergequeue.Outcome) notify.Message {
	base := strings.TrimPrefix(out.BaseBranch, "refs/heads/")
	if out.Problem == "conflict" {
		return notify.MergeReview(where, "ralph/"+name, base, "conflict", strings.Join(out.Conflicts, ", "), exitMergeConflict, time.Now())
	}
	return notify.MergeReview(where, "ralph/"+name, base, "validation", out.Validate, exitMergeInvalid, time.Now())
}

// request is the merge to queue, with the validate command resolved: --validate, else
// the main work tree's setting — not the loop's branch's, which the loop's agent could
// have weakened — approved as the loop's commands are.
func (c *MergeCmd) request(s Streams, mainTree string) (mergequeue.Request, *config.Config, error) {
	req := mergequeue.Request{Name: c.Name, How: gitops.HowMerge,
		Say: func(msg string) { fmt.Fprintf(s.Stderr, "git-ralph: %s\n", display.PrintableText(msg)) }}
	switch {
	case c.Squash:
		req.How = gitops.HowSquash
	case c.Rebase:
		req.How = gitops.HowRebase
	}
	var flags []config.Flag
	if c.Validate != nil {
		flags = append(flags, config.Flag{Key: "validate", Name: "--validate", Raw: *c.Validate})
	}
	held := c.heldValidate()
	if held != nil {
		flags = append(flags, config.Flag{Key: "validate", Name: "--validate", Raw: held.Validate.V})
	}
	if c.Notify != "" {
		flags = append(flags, config.Flag{Key: "notify", Name: "--notify", Raw: c.Notify})
	}
	resolved, err := loadConfig(mainTree, flags)
	if err != nil {
		return req, nil, err
	}
	warnSettings(s.Stderr, resolved)
	req.Validate, req.ValidateTimeout = resolved.Validate.V, resolved.ValidateTimeout.V
	if held != nil {
		req.ValidateTimeout = held.ValidateTimeout.V
	}
	if resolved.Validate.Origin.Kind == config.FromRepo || sendsFromRepo(resolved.Notify) {
		if err := requireTrust(s, mainTree, resolved); err != nil {
			return req, nil, err
		}
	}
	return req, resolved, nil
}

// heldValidate is the loop's settings when they give the merge its validate command:
// the loop that queues the merge had one and --validate did not replace it. Without one,
// the main work tree's setting applies, as for 'merge'.
func (c *MergeCmd) heldValidate() *config.Config {
	if c.Validate != nil || c.held == nil || strings.TrimSpace(c.held.Validate.V) == "" {
		return nil
	}
	return c.held
}

// sendsFromRepo reports whether the repository's file has notifications go to a
// webhook: that is under trust, like its commands.
func sendsFromRepo(v config.Value[[]string]) bool {
	return v.Origin.Kind == config.FromRepo && slices.ContainsFunc(v.V, config.IsWebhook)
}

// printMerge says what became of the merge: merged (and the work trees that followed or
// not), or why it needs review, with the exit code that says which.
func printMerge(w io.Writer, name string, out mergequeue.Outcome) error {
	base := strings.TrimPrefix(out.BaseBranch, "refs/heads/")
	switch {
	case out.State == "needs-review" && out.Problem == "conflict":
		return &exitError{code: exitMergeConflict, err: hints.Wrap(
			fmt.Errorf("merging ralph/%s into %s conflicts in:\n  %s\n%s was left at %s; the loop needs review", name, base,
				strings.Join(out.Conflicts, "\n  "), base, display.ShortHash(out.BaseBefore)),
			"'git ralph merge %s --resolve' has the loop's agent merge %s in and resolve them; or do it in its worktree yourself and run 'git ralph merge %s' again", name, base, name)}
	case out.State == "needs-review":
		return &exitError{code: exitMergeInvalid, err: hints.Wrap(
			fmt.Errorf("the merge of ralph/%s into %s fails validation (%s); the end of its output:\n%s\n%s was left at %s; the loop needs review", name, base,
				out.Validate, indent(out.Output), base, display.ShortHash(out.BaseBefore)),
			"'git ralph merge %s --resolve' has the loop's agent merge %s in and make validation pass", name, base)}
	case out.AlreadyMerged:
		fmt.Fprintf(w, "%s already holds every commit of ralph/%s: nothing to merge.\n", base, name)
		return nil
	}
	how := "merge commit"
	if out.FastForward {
		how = "fast-forward"
	} else if out.How != gitops.HowMerge {
		how = out.How
	}
	fmt.Fprintf(w, "Merged ralph/%s into %s (%s): %s is now at %s.\n", name, base, how, base, display.ShortHash(out.Result))
	if strings.TrimSpace(out.Validate) == "" {
		fmt.Fprintf(w, "The merged result was not validated: no validate command (--validate, RALPH_VALIDATE or validate in the configuration).\n")
	}
	printTrees(w, base, out)
	return nil
}

// printTrees says which work trees with the base checked out followed, and how to bring
// along one that was left behind.
func printTrees(w io.Writer, base string, out mergequeue.Outcome) {
	for _, t := range out.Trees {
		if t.Updated {
			fmt.Fprintf(w, "Updated the files of %s.\n", display.Printable(t.Path))
			continue
		}
		fmt.Fprintf(w, "The work tree %s has %s checked out and was not updated (%s): its files are still those of %s.\n",
			display.Printable(t.Path), base, display.PrintableText(t.Problem), display.ShortHash(out.BaseBefore))
		fmt.Fprintf(w, "To update them, keeping your changes (git refuses if they touch the merged files): %s\n",
			display.Printable(mergequeue.UpdateCommand(t.Path, out.BaseBefore, out.Result)))
	}
}

// indent puts two spaces before each line of a command's output.
func indent(text string) string {
	if text == "" {
		return "  (no output)"
	}
	return "  " + strings.ReplaceAll(display.PrintableText(text), "\n", "\n  ")
}

// resolveFirst runs the loop's agent in merge mode in its worktree (--resolve), told the
// base branch and what went wrong last time; the merge is queued only when it ends with
// SUCCESS.
func (c *MergeCmd) resolveFirst(ctx context.Context, s Streams, in *interrupts, here string) error {
	target, err := mergequeue.Open(ctx, here, c.Name)
	if err != nil {
		return err
	}
	loop := &LoopCmd{Worktree: c.Name, Mode: "merge", Fresh: true, Agent: c.Agent, AgentCmd: c.AgentCmd, Max: c.Max, Notify: c.Notify,
		Context: resolveContext(target)}
	if c.Validate != nil {
		loop.Validate = *c.Validate
	}
	fmt.Fprintf(s.Stderr, "git-ralph: the loop %s's agent merges %s into its branch (merge mode)\n", c.Name, strings.TrimPrefix(target.BaseBranch(), "refs/heads/"))
	err = loop.Run(ctx, s, in)
	var exit *exitError
	if errors.As(err, &exit) && exit.code == 0 && exit.err == nil {
		return nil
	}
	fmt.Fprintf(s.Stderr, "git-ralph: the agent did not end the merge with SUCCESS; nothing was queued\n")
	return err
}

// resolveContext is what the merge-mode agent is told: the base branch, and why the
// queue refused the branch last time.
func resolveContext(target mergequeue.Target) string {
	base := strings.TrimPrefix(target.BaseBranch(), "refs/heads/")
	var b strings.Builder
	fmt.Fprintf(&b, "The base branch is `%s`: merge it into this branch (`git merge %s`).\n", base, base)
	last, found, err := target.Last()
	switch {
	case err != nil || !found || last.State != "needs-review":
	case last.Problem == "conflict":
		fmt.Fprintf(&b, "The merge queue refused this branch: merging it into %s conflicts in:\n", base)
		for _, f := range last.Conflicts {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	default:
		fmt.Fprintf(&b, "The merge queue refused this branch: the merged result fails validation (`%s`). The end of its output:\n\n```\n%s\n```\n", last.Validate, last.Output)
	}
	return b.String()
}
