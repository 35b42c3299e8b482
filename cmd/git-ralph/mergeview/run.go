package mergeview

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/notify"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
	"github.com/git-ralph/git-ralph/loop/mergequeue"
)

// Merge is one merge of a worktree loop's branch through the queue, as `merge` runs it,
// and `loop --merge`, a best-of's winner and a workflow's worktree stage with it.
type Merge struct {
	Name     string
	How      string  // gitmerge.HowMerge, HowSquash or HowRebase
	Validate *string // --validate
	Notify   string  // --notify
	// AllowProtected lets a branch that changes protected paths merge (--allow-protected).
	AllowProtected bool
	// Held is the settings of the loop that queues this merge (loop --merge): the merged
	// result is held to the validation the loop was held to, as the loop resolved it
	// (flag, environment, its worktree's file) and had it approved. nil for 'merge'.
	Held   *config.Config
	Stdout io.Writer
	Stderr io.Writer
	Trust  trust.Terminal // where the main work tree's commands are approved
}

// Queue is Run for the commands that need only its error.
func (m *Merge) Queue(ctx context.Context, here string, notes *notify.Notifier, hurry <-chan struct{}) error {
	_, err := m.Run(ctx, here, notes, hurry)
	return err
}

// Run runs the merge through the queue, prints its outcome and returns it. A merge left
// for review is said through notes (a loop's, with --merge), else through the notify
// setting of the main work tree, waiting for the sends (a second Ctrl+C, hurry, stops the
// wait); its error carries the exit code that says which problem (ReviewCode).
func (m *Merge) Run(ctx context.Context, here string, notes *notify.Notifier, hurry <-chan struct{}) (mergequeue.Outcome, error) {
	target, err := mergequeue.Open(ctx, here, m.Name)
	if err != nil {
		return mergequeue.Outcome{}, err
	}
	req, resolved, err := m.request(target.MainTree())
	if err != nil {
		return mergequeue.Outcome{}, err
	}
	if notes == nil {
		notes = launch.NewNotifier(m.Stderr, resolved.Notify.V, notify.Where{Repository: filepath.Base(target.MainTree()), Loop: m.Name}, nil)
		defer notes.Close(hurry)
	}
	out, err := target.Merge(ctx, req)
	for _, note := range out.Notes {
		fmt.Fprintf(m.Stderr, "git-ralph: %s\n", display.PrintableText(note))
	}
	if err != nil {
		return out, err
	}
	if out.State == "needs-review" {
		notes.Send(ReviewNote(notes.Where(), m.Name, out, ReviewCode(out.Problem)))
		return out, &exitcode.Error{Code: ReviewCode(out.Problem), Err: ReviewError(m.Name, out)}
	}
	Merged(m.Stdout, m.Name, out)
	return out, nil
}

// request is the merge to queue, with the validate command resolved: --validate, else
// the main work tree's setting — not the loop's branch's, which the loop's agent could
// have weakened — approved as the loop's commands are.
func (m *Merge) request(mainTree string) (mergequeue.Request, *config.Config, error) {
	req := mergequeue.Request{Name: m.Name, How: m.How,
		Say: func(msg string) { fmt.Fprintf(m.Stderr, "git-ralph: %s\n", display.PrintableText(msg)) }}
	var flags []config.Flag
	if m.Validate != nil {
		flags = append(flags, config.Flag{Key: "validate", Name: "--validate", Raw: *m.Validate})
	}
	held := m.heldValidate()
	if held != nil {
		flags = append(flags, config.Flag{Key: "validate", Name: "--validate", Raw: held.Validate.V})
	}
	if m.Notify != "" {
		flags = append(flags, config.Flag{Key: "notify", Name: "--notify", Raw: m.Notify})
	}
	resolved, err := launch.LoadConfig(mainTree, flags)
	if err != nil {
		return req, nil, err
	}
	launch.WarnSettings(m.Stderr, resolved)
	req.Validate, req.ValidateTimeout = resolved.Validate.V, resolved.ValidateTimeout.V
	if held != nil {
		req.ValidateTimeout = held.ValidateTimeout.V
	}
	req.Protect, req.AllowProtected = protected(resolved, m.Held), m.AllowProtected
	if resolved.Validate.Origin.Kind == config.FromRepo || config.SendsFromRepo(resolved.Notify) {
		if err := m.Trust.Require(mainTree, resolved); err != nil {
			return req, nil, err
		}
	}
	return req, resolved, nil
}

// heldValidate is the loop's settings when they give the merge its validate command:
// the loop that queues the merge had one and --validate did not replace it. Without one,
// the main work tree's setting applies, as for 'merge'.
func (m *Merge) heldValidate() *config.Config {
	if m.Validate != nil || m.Held == nil || strings.TrimSpace(m.Held.Validate.V) == "" {
		return nil
	}
	return m.Held
}

// ReviewCode is the exit code of a merge the queue left for review, which says its
// problem (mergequeue.Outcome's: "conflict", or the validation's failure).
func ReviewCode(problem string) int {
	if problem == "conflict" {
		return exitcode.MergeConflict
	}
	return exitcode.MergeInvalid
}

// protected are the paths a merged branch may not change: the main work tree's protect
// setting (not the branch's, which the loop's agent could have changed) and, for a loop
// that queues its own merge, the loop's (its --protect flags).
func protected(resolved, held *config.Config) []string {
	list := slices.Clone(resolved.Protect.V)
	if held != nil {
		for _, p := range held.Protect.V {
			if !slices.Contains(list, p) {
				list = append(list, p)
			}
		}
	}
	return list
}
