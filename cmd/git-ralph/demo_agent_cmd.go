package main

import (
	"context"
	"os"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/loop/demoagent"
)

// DemoAgentCmd is the hidden `git ralph demo-agent`, the scripted agent process.
type DemoAgentCmd struct{}

// Run does one iteration of the scripted agent in the current directory.
func (DemoAgentCmd) Run(ctx context.Context, s Streams) error {
	dir, err := workDir()
	if err != nil {
		return err
	}
	if code := demoagent.Main(ctx, dir, os.Getenv("RALPH_MODE"), s.Stdin, s.Stdout); code != 0 {
		return exitcode.Quiet(code)
	}
	return nil
}
