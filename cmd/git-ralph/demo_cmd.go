package main

import (
	"context"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/scaffold"
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
		Keep: c.Keep, Workflow: c.Workflow, FirstLoop: firstLoop,
		Scaffold: func(dir string) error {
			_, err := scaffold.Write(dir, false)
			return err
		},
		ScaffoldWorkflow: func(dir, request string) error {
			files, err := scaffold.Workflow("hierarchy")
			if err != nil {
				return err
			}
			for i, f := range files {
				if strings.HasSuffix(f.Path, "/request.md") {
					files[i].Body = request
				}
			}
			_, err = scaffold.WriteFiles(dir, files, false)
			return err
		},
	}
	return exitFrom(d.Run(ctx))
}
