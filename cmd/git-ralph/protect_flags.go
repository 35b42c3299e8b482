package main

import "github.com/git-ralph/git-ralph/cmd/git-ralph/config"

// ProtectFlags are the loop's protected paths given on the command line: added to those
// of the config files, never replacing them (see docs/guide/spend-and-safety.md).
type ProtectFlags struct {
	Protect []string `sep:"none" help:"Reject (roll back) an iteration that changes a path matching GLOB (** for any depth, e.g. tests/acceptance/**); repeatable, added to the config's protect list." placeholder:"GLOB"`
}

// protectFlags are the --protect flags as the config package takes them, one each.
func (p ProtectFlags) protectFlags() []config.Flag {
	fs := make([]config.Flag, 0, len(p.Protect))
	for _, g := range p.Protect {
		fs = append(fs, config.Flag{Key: "protect", Name: "--protect", Raw: g})
	}
	return fs
}
