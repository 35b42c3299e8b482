package launch

import (
	"errors"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

// Options are what the loop command was given beyond the settings: the settings
// themselves arrive as Flags, as the config package takes them (the command knows its
// flags' names and keys).
type Options struct {
	Flags []config.Flag
	// StageSettings are a workflow stage's bounded settings (config.WorkflowSetting,
	// FILE:LINE:FIELD:KEY=VALUE): the repository's, not the user's flags, so that they
	// tighten the user's limits and never loosen them.
	StageSettings []string
	Task          string // the task argument
	TaskFile      string // --task-file
	Prompt        string // --prompt FILE, in place of the mode's prompt files
	Context       string // --context
	Fresh         bool
	Verbose       Verbose
	Quiet         bool
	JSON          bool
	DryRun        bool
	SkipIfBusy    bool
	Worktree      string // --worktree NAME: the loop runs in a worktree of its own
	Base          string // --base REV, with --worktree
	Record        string // --record DIR
	ReplaySpeed   string // --replay-speed, with --agent replay:DIR
	ReplayForce   bool
	Version       string // git-ralph's, for a recording's manifest
}

// Check refuses options that contradict each other; merge and bestOf say whether
// --merge and --best-of were given too.
func (o *Options) Check(merge, bestOf bool) error {
	switch {
	case o.Verbose.On() && o.Quiet:
		return hints.Wrap(errors.New("--verbose and --quiet contradict each other"), "pick one")
	case merge && o.Worktree == "" && !bestOf:
		return hints.Wrap(errors.New("--merge needs --worktree"), "a loop in a worktree of its own has a branch to merge: --worktree NAME --merge")
	case o.JSON && o.DryRun:
		return hints.Wrap(errors.New("--dry-run has no JSON form"), "drop --json to see the settings and the prompt")
	case o.Record != "" && bestOf:
		return hints.Wrap(errors.New("--record keeps one loop's runs, and --best-of runs several"), "record one loop at a time: drop --best-of, or --record")
	}
	return nil
}
