package main

import (
	"context"
	"fmt"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
)

// ConfigCmd is `git ralph config`.
type ConfigCmd struct {
	Mode string `help:"Resolve for this mode, as 'git ralph loop --mode MODE' would." placeholder:"MODE"`
	JSON bool   `name:"json" help:"Print a JSON array of {key, value, origin}."`
}

// Run prints every resolved setting with where it came from: a flag, an environment
// variable, a line of the repository or user config file, or the built-in default.
func (c *ConfigCmd) Run(ctx context.Context, s Streams) error {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	loopCmd := &LoopCmd{Mode: c.Mode}
	set, err := loopCmd.settings(root)
	if err != nil {
		return err
	}
	launch.WarnSettings(s.Stderr, set.Resolved)
	if lifted := set.Resolved.LiftedLimit; lifted != nil {
		fmt.Fprintf(s.Stderr, "warning: %s: a loop here refuses to start\nhint: %s\n", lifted, lifted.Hint())
	}
	entries := set.Entries()
	if c.JSON {
		type entry struct {
			Key    string `json:"key"`
			Value  string `json:"value"`
			Origin string `json:"origin"`
		}
		out := make([]entry, len(entries))
		for i, e := range entries {
			out[i] = entry{e.Key, e.Value, e.Origin.String()}
		}
		return display.JSON(s.Stdout, out)
	}
	launch.PrintEntries(s.Stdout, entries)
	if cmds := set.Resolved.RepoCommands(); len(cmds) > 0 {
		trusted, err := trust.User().Trusted(root, cmds)
		state := "trusted"
		switch {
		case err != nil:
			state = "unknown: " + trust.Explain(err).Error()
		case !trusted:
			state = "NOT trusted: run 'git ralph trust' to approve them"
		}
		fmt.Fprintf(s.Stdout, "\nCommands from .ralph/config.toml: %s\n", state)
	}
	return nil
}
