package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/githooks"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
)

// PrePushCmd is `git ralph pre-push`, run by the pre-push hook.
type PrePushCmd struct {
	Remote string `arg:"" optional:"" help:"The remote's name, as git gives it to the hook."`
	URL    string `arg:"" optional:"" name:"url" help:"The remote's URL, as git gives it to the hook."`
}

// skipHint closes every refusal of the hook: the user can always push anyway.
const skipHint = "to push without git-ralph's checks: git push --no-verify"

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
	updates, err := pushedRefs(ctx, s.Stdin, root)
	if err != nil {
		return err
	}
	if githooks.IsAutoPush() {
		return nil // the loop's own push, of commits that passed its validation
	}
	if err := githooks.RefuseMidIteration(ctx, root, launch.LockPath, updates); err != nil {
		return err
	}
	cfg, err := launch.LoadConfig(root, nil)
	if err != nil {
		return err
	}
	if err := c.scanSecrets(ctx, s, root, cfg, updates); err != nil {
		return err
	}
	if strings.TrimSpace(cfg.Validate.V) == "" {
		return nil
	}
	if cfg.Validate.Origin.Kind == config.FromRepo {
		if err := s.terminal().Require(root, cfg); err != nil {
			return err
		}
	}
	v := githooks.Validation{Command: cfg.Validate.V, Timeout: cfg.ValidateTimeout.V, Progress: s.Stderr}
	err = v.Push(ctx, root, updates)
	if errors.Is(err, githooks.ErrInterrupted) {
		return &exitcode.Error{Code: exitcode.Interrupted, Err: err}
	}
	return err
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
	return launch.RepoRoot(ctx)
}

// pushedRefs are the ref updates git gives on stdin; typed by hand on a terminal, the
// command checks what pushing the current commit would check.
func pushedRefs(ctx context.Context, stdin io.Reader, root string) ([]githooks.RefUpdate, error) {
	if reporting.IsTerminal(stdin) {
		return githooks.HeadUpdate(ctx, root)
	}
	return githooks.ReadUpdates(stdin)
}

// withSkipHint adds skipHint to err's hint, or gives it one.
func withSkipHint(err error) error {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return hints.Wrap(err, "%s\n%s", h.Hint(), skipHint)
	}
	return hints.Wrap(err, "%s", skipHint)
}

// scanSecrets refuses the push when its commits add secrets. The repository's allow
// list is used only when trusted: a clone's own .ralph/secrets-allow must not wave its
// secrets through on someone else's machine.
func (c *PrePushCmd) scanSecrets(ctx context.Context, s Streams, root string, cfg *config.Config, updates []githooks.RefUpdate) error {
	var allow map[string]bool
	untrusted := false
	if cfg.SecretsAllow != "" {
		ok, err := trust.User().TrustedIn(cfg.RepoCommands(), root)
		if err != nil {
			return trust.Explain(err)
		}
		if ok {
			allow = redact.ParseAllow(cfg.SecretsAllow)
		}
		untrusted = !ok
	}
	warning, err := githooks.ScanPush(ctx, root, updates, c.Remote, allow)
	if warning != "" {
		fmt.Fprintln(s.Stderr, "warning: "+warning)
	}
	var found *loop.SecretsFound
	if errors.As(err, &found) {
		h := found.Hint()
		if untrusted {
			h += "\n" + config.SecretsAllowFile + " was not used: it is not trusted yet (run 'git ralph trust')"
		}
		return hints.Wrap(err, "%s", h)
	}
	return err
}
