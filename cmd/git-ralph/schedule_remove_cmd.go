package main

import (
	"context"
	"fmt"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/schedule"
)

// ScheduleRemoveCmd is `git ralph schedule remove ID`.
type ScheduleRemoveCmd struct {
	ID string `arg:"" help:"The entry's ID, as 'git ralph schedule list' shows it."`
}

// Run removes the line of one entry and leaves every other byte of the crontab alone.
func (c *ScheduleRemoveCmd) Run(ctx context.Context, s Streams) error {
	gone, err := schedule.Remove(ctx, c.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Stdout, "removed cron entry %s: %s in %s\n", gone.ID, gone.Schedule, display.Printable(gone.Repo))
	return nil
}
