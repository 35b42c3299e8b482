package main

import (
	"github.com/alecthomas/kong"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

// HelpCmd is `git ralph help [COMMAND...]`, the same as `git ralph [COMMAND...] --help`.
type HelpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to explain, e.g. 'loop' or 'schedule add'." placeholder:"COMMAND"`
}

// Run prints the help of the command, or of git ralph itself.
func (c *HelpCmd) Run(k *kong.Kong) error {
	if _, err := k.Parse(append(c.Command, "--help")); err != nil {
		return hints.Wrap(err, "'git ralph help' lists the commands")
	}
	return nil
}
