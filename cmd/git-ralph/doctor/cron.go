package doctor

import (
	"context"
	"os/exec"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/schedule"
)

// CronEntries are git-ralph's crontab lines that run a loop in root, with their PATH.
func CronEntries(ctx context.Context, root string) ([]CronEntry, error) {
	if _, err := exec.LookPath("crontab"); err != nil {
		return nil, nil // no cron here: nothing is scheduled
	}
	list, err := schedule.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []CronEntry
	for _, e := range list {
		if e.Repo == root {
			out = append(out, CronEntry{ID: e.ID, Path: e.Path})
		}
	}
	return out, nil
}
