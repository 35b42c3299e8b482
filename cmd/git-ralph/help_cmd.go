package main

import (
	"errors"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/help"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

// HelpCmd is `git ralph help [COMMAND...]`, the same as `git ralph [COMMAND...] --help`,
// and `git ralph help --json`, the whole command line, configuration, exit codes and
// events for programs.
type HelpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to explain, e.g. 'loop' or 'schedule add'." placeholder:"COMMAND"`
	JSON    bool     `name:"json" help:"Print every command, flag, config key, exit code and event type as one JSON object, for programs (docs/reference/help-json.md)."`
}

// Run prints the help of the command, or of git ralph itself, or the contract.
func (c *HelpCmd) Run(s Streams, k *kong.Kong) error {
	if c.JSON {
		if len(c.Command) > 0 {
			return hints.Wrap(errors.New("help --json describes every command at once"),
				"run 'git ralph help --json' and pick the command from its \"commands\", e.g. with jq")
		}
		return help.WriteContract(s.Stdout, help.NewContract(k.Model, versionText()))
	}
	if _, err := k.Parse(append(c.Command, "--help")); err != nil {
		return hints.Wrap(err, "'git ralph help' lists the commands")
	}
	return nil
}
