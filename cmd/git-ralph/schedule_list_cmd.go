package main

import (
	"context"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/schedule"
)

// ScheduleListCmd is `git ralph schedule list`.
type ScheduleListCmd struct {
	JSON bool `name:"json" help:"Print the entries as a JSON array."`
}

// Run prints git-ralph's entries of every repository; those of the repository the
// command runs in are marked with a *.
func (c *ScheduleListCmd) Run(ctx context.Context, s Streams) error {
	list, err := schedule.List(ctx)
	if err != nil {
		return err
	}
	if root, err := launch.RepoRoot(ctx); err == nil {
		for i := range list {
			list[i].Current = list[i].Repo == root
		}
	}
	if c.JSON {
		return schedule.PrintJSON(s.Stdout, list)
	}
	schedule.PrintTable(s.Stdout, list)
	return nil
}
