package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/mergeview"
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
		notes.Send(mergeview.ReviewNote(notes.Where(), c.Name, out, reviewCode(out.Problem)))
		return out, &exitError{code: reviewCode(out.Problem), err: mergeview.ReviewError(c.Name, out)}
	}
	mergeview.Merged(s.Stdout, c.Name, out)
	return out, nil
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
	if resolved.Validate.Origin.Kind == config.FromRepo || config.SendsFromRepo(resolved.Notify) {
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

// resolveFirst runs the loop's agent in merge mode in its worktree (--resolve), told the
// base branch and what went wrong last time; the merge is queued only when it ends with
// SUCCESS.
func (c *MergeCmd) resolveFirst(ctx context.Context, s Streams, in *interrupts, here string) error {
	target, err := mergequeue.Open(ctx, here, c.Name)
	if err != nil {
		return err
	}
	loop := &LoopCmd{Worktree: c.Name, Mode: "merge", Fresh: true, Agent: c.Agent, AgentCmd: c.AgentCmd, Max: c.Max, Notify: c.Notify,
		Context: mergeview.ResolveContext(target)}
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
