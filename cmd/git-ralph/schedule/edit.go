package schedule

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/history"
)

// Add writes the job's line at the end of the user's crontab under a new ID, which it
// returns, unless the same schedule already runs the same loop in the same repository.
// Every other line stays as it was.
func Add(ctx context.Context, j Job) (string, error) {
	tab, err := findCrontab()
	if err != nil {
		return "", err
	}
	return addEntry(ctx, tab, j)
}

// addEntry adds the job's line to the table tab holds.
func addEntry(ctx context.Context, tab crontab, j Job) (string, error) {
	table, err := tab.read(ctx)
	if err != nil {
		return "", err
	}
	list := entries(table)
	for _, e := range list {
		if e.Schedule == j.schedule && e.Repo == j.repo && slices.Equal(e.Flags, j.flags) {
			return "", hints.Wrap(fmt.Errorf("cron entry %s already runs this loop at %q in %s", e.ID, e.Schedule, e.Repo),
				"'git ralph schedule list' shows it; 'git ralph schedule remove %s' removes it", e.ID)
		}
	}
	if j.id, err = newEntryID(list); err != nil {
		return "", err
	}
	return j.id, tab.write(ctx, withLine(table, j.line()))
}

// PrepareLogs makes the directory the cron log goes to, inside .ralph/ which stays out
// of git.
func PrepareLogs(root string) error {
	if err := history.EnsureGitignore(root); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, history.LogsDir), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", history.LogsDir, err)
	}
	return nil
}

// List reads git-ralph's entries, of every repository, from the user's crontab.
func List(ctx context.Context) ([]Entry, error) {
	_, table, err := readCrontab(ctx)
	if err != nil {
		return nil, err
	}
	return entries(table), nil
}

// Remove removes the line of the entry with the ID id, leaves every other byte of the
// crontab alone, and returns the entry it removed.
func Remove(ctx context.Context, id string) (Entry, error) {
	tab, table, err := readCrontab(ctx)
	if err != nil {
		return Entry{}, err
	}
	var gone Entry
	for _, e := range entries(table) {
		if e.ID == id {
			gone = e
		}
	}
	rest, found := withoutEntry(table, id)
	if !found {
		return Entry{}, hints.Wrap(fmt.Errorf("no git-ralph cron entry has the ID %q", id), "'git ralph schedule list' shows the IDs")
	}
	return gone, tab.write(ctx, rest)
}
