package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/mergeview"
	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/loop/mergequeue"
)

// MergeCmd is `git ralph merge NAME`.
type MergeCmd struct {
	Name           string  `arg:"" help:"The worktree loop whose branch ralph/NAME is merged into its base branch." placeholder:"NAME"`
	Squash         bool    `help:"Land the loop's work as one squashed commit on the base branch."`
	Rebase         bool    `help:"Replay the loop's commits on top of the base branch (the base then fast-forwards)."`
	Validate       *string `help:"The command the merged result must pass (default: the validate setting of the main work tree's configuration)." placeholder:"CMD"`
	Resolve        bool    `help:"First run the loop's agent in its worktree in merge mode (the built-in PROMPT_merge.md unless the branch has its own: merge the base in, resolve conflicts, make validation pass), then queue the merge if it ends with SUCCESS."`
	Agent          string  `help:"With --resolve: the agent preset to run (default: the loop's configuration)." placeholder:"NAME"`
	AgentCmd       string  `name:"agent-cmd" help:"With --resolve: your own agent command to run instead (default: the loop's configuration)." placeholder:"CMD"`
	Max            *int    `help:"With --resolve: stop the agent's loop after N iterations (default: the loop's max_iterations)." placeholder:"N"`
	AllowProtected bool    `name:"allow-protected" help:"Merge even if the branch changes protected paths (the protect setting of the main work tree's configuration)."`
	Notify         string  `help:"Say when the merge needs review: a comma-separated list of desktop, bell and webhook URLs, or none (default: the notify setting of the main work tree's configuration)." placeholder:"LIST"`
}

// Run queues the merge, waits for its turn, and reports what became of it.
func (c *MergeCmd) Run(ctx context.Context, s Streams, in *interrupts) error {
	if c.Squash && c.Rebase {
		return hints.Wrap(errors.New("--squash and --rebase contradict each other"), "pick one, or neither for a merge commit (a fast-forward when possible)")
	}
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	if c.Resolve {
		if err := c.resolveFirst(ctx, s, in, here); err != nil {
			return err
		}
	}
	return c.merging(s, nil).Queue(ctx, here, nil, in.hurry)
}

// merging is the merge these flags ask for, its lines on s; held is the settings of the
// loop that queues it (loop --merge), nil for 'merge' (mergeview.Merge's Held).
func (c *MergeCmd) merging(s Streams, held *config.Config) *mergeview.Merge {
	how := gitmerge.HowMerge
	switch {
	case c.Squash:
		how = gitmerge.HowSquash
	case c.Rebase:
		how = gitmerge.HowRebase
	}
	return &mergeview.Merge{Name: c.Name, How: how, Validate: c.Validate, Notify: c.Notify, Held: held, AllowProtected: c.AllowProtected,
		Stdout: s.Stdout, Stderr: s.Stderr, Trust: s.terminal()}
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
	var exit *exitcode.Error
	if errors.As(err, &exit) && exit.Code == exitcode.OK && exit.Err == nil {
		return nil
	}
	fmt.Fprintf(s.Stderr, "git-ralph: the agent did not end the merge with SUCCESS; nothing was queued\n")
	return err
}
