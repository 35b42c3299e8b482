package main

import (
	"context"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
)

// DemoCmd is `git ralph demo`: the whole tool at work on a scratch repository, with a
// scripted agent built into git-ralph, so it needs no agent CLI and no network.
type DemoCmd struct {
	Keep     bool `help:"Keep the scratch repository to look around in."`
	Workflow bool `help:"Show the hierarchy workflow instead (plan → spec → phase → code, with the plan's approval gate)."`
}

// Run scaffolds the scratch repository, runs one plan iteration and then build
// iterations until the agent signals SUCCESS (or the hierarchy workflow), and shows what
// happened.
func (c *DemoCmd) Run(ctx context.Context, s Streams, in *interrupts) error {
	d := &launch.Demo{Streams: s.launch(), Signals: in.launch(),
		Keep: c.Keep, Workflow: c.Workflow, FirstLoop: firstLoop}
	return d.Run(ctx)
}
