package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
)

// pusher pushes HEAD after an iteration that moved it and passed validation (setting
// push), once a secret scan of what it sends finds nothing.
type pusher struct {
	dir    string
	remote string // "": the branch's upstream remote, else origin
	branch string // "": the upstream branch, else the same name
	// allow are the fingerprints of findings that may be pushed anyway, as trusted when
	// the run started: an agent that writes its own entries into .ralph/secrets-allow
	// changes nothing
	allow  map[string]bool
	report func(Event)
}

// push pushes after iteration i (which started at commit from), classified so. A failed
// push counts as a failed iteration; after SUCCESS it ends the run as aborted, since the
// work is done but did not reach the remote. It returns the push's result in words, and
// where it pushed when it did (the ledger's notes follow).
func (p *pusher) push(ctx context.Context, i int, from string, class *classification, val Validation) (string, *gitpush.Target) {
	if !class.outcome.Counts() || (val.Ran && !val.Passed) {
		return "", nil
	}
	head, err := gitops.Head(ctx, p.dir)
	if err != nil || head == from || head == "" {
		return "", nil
	}
	target, err := gitpush.ResolveTarget(ctx, p.dir, p.remote, p.branch)
	if err == nil {
		err = p.scan(ctx, head, target)
	}
	if err == nil {
		err = gitpush.Push(ctx, p.dir, target)
	}
	p.report(Pushed{Iteration: i, Target: target.String(), Commit: head, Err: err})
	if err == nil {
		return "pushed to " + target.String(), &target
	}
	if class.outcome == OutcomeDone {
		class.stop, class.why, class.cause = StatusAborted, "the agent signalled SUCCESS, but the push failed: "+err.Error(), "push_failed"
	}
	class.outcome, class.reason = OutcomeFailure, "push failed: "+err.Error()
	class.addFeedback(pushFeedback(i, target.String(), err))
	return "failed: " + err.Error(), nil
}

// scan refuses to push commits that add secrets (see ScanPush): what the remote has not
// seen yet, from HEAD.
func (p *pusher) scan(ctx context.Context, head string, target gitpush.Target) error {
	warning, err := ScanPush(ctx, p.dir, []string{head}, nil, target.Remote, p.allow)
	if warning != "" {
		p.report(Warning{Message: warning})
	}
	var found *SecretsFound
	if errors.As(err, &found) {
		return fmt.Errorf("%w\nhow to proceed: %s", err, found.Hint())
	}
	return err
}
