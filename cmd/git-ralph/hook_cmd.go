package main

import (
	"context"
	"fmt"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/githooks"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
)

// HookCmd is `git ralph hook install|uninstall`.
type HookCmd struct {
	Install   HookInstallCmd   `cmd:"" help:"Install the pre-push hook."`
	Uninstall HookUninstallCmd `cmd:"" help:"Remove git-ralph's pre-push hook."`
}

// HookInstallCmd is `git ralph hook install`.
type HookInstallCmd struct {
	Force bool `help:"Keep a pre-push hook git-ralph did not write: move it to pre-push.before-ralph and run it first."`
}

// HookUninstallCmd is `git ralph hook uninstall`.
type HookUninstallCmd struct{}

// locateHook finds the pre-push hook of the repository the command runs in.
func locateHook(ctx context.Context) (githooks.Hook, error) {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return githooks.Hook{}, err
	}
	return githooks.Locate(ctx, root)
}

// Run writes git-ralph's pre-push hook, keeping a foreign hook only with --force.
func (c *HookInstallCmd) Run(ctx context.Context, s Streams) error {
	h, err := locateHook(ctx)
	if err != nil {
		return err
	}
	done, err := h.Install(c.Force, githooks.Program())
	if err != nil {
		return err
	}
	verb := "installed"
	if done.Updated {
		verb = "updated"
	}
	runs := "'git ralph pre-push'"
	if done.Program != "" {
		runs = fmt.Sprintf("%s pre-push (or 'git ralph pre-push' if it moves)", done.Program)
	}
	fmt.Fprintf(s.Stdout, "%s the pre-push hook %s: it runs %s\n", verb, done.Hook, runs)
	switch {
	case done.Moved:
		fmt.Fprintf(s.Stdout, "kept your previous hook as %s: it runs first, and its failure stops the push\n", done.Kept)
	case done.Kept != "":
		fmt.Fprintf(s.Stdout, "it runs %s first, and its failure stops the push\n", done.Kept)
	}
	return nil
}

// Run removes git-ralph's pre-push hook and puts back the hook it replaced, if any.
func (c *HookUninstallCmd) Run(ctx context.Context, s Streams) error {
	h, err := locateHook(ctx)
	if err != nil {
		return err
	}
	done, err := h.Uninstall()
	if done.Removed {
		fmt.Fprintf(s.Stdout, "removed the pre-push hook %s\n", done.Hook)
	}
	switch {
	case err != nil:
		return err
	case done.Restored:
		fmt.Fprintf(s.Stdout, "restored your previous hook %s\n", done.Hook)
	case !done.Removed:
		fmt.Fprintf(s.Stdout, "no pre-push hook at %s: nothing to remove\n", done.Hook)
	}
	return nil
}
