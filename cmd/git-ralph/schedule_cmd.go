package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/history"
)

// ScheduleCmd is `git ralph schedule add|list|remove`.
type ScheduleCmd struct {
	Add    ScheduleAddCmd    `cmd:"" help:"Add a cron entry that runs 'git ralph loop' in this repository."`
	List   ScheduleListCmd   `cmd:"" help:"List git-ralph's cron entries, of every repository."`
	Remove ScheduleRemoveCmd `cmd:"" help:"Remove one of git-ralph's cron entries by its ID."`
}

// ScheduleAddCmd is `git ralph schedule add --cron SPEC [-- LOOP-FLAGS]`.
type ScheduleAddCmd struct {
	Cron      string   `required:"" placeholder:"SPEC" help:"When to run, in crontab's syntax: \"MIN HOUR DAY MONTH WEEKDAY\" such as \"0 2 * * *\", or @hourly, @daily, @weekly, @monthly, @yearly, @reboot."`
	LoopFlags []string `arg:"" optional:"" name:"loop-flags" help:"Flags for 'git ralph loop', after --: git ralph schedule add --cron \"0 2 * * *\" -- --max 10."`
}

// Run checks the schedule and the loop flags as the loop will read them, then adds one
// line to the user's crontab and leaves every other line as it was.
func (c *ScheduleAddCmd) Run(ctx context.Context, s Streams) error {
	spec, err := parseCronSpec(c.Cron)
	if err != nil {
		return err
	}
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	j, warnings, err := c.newJob(ctx, s, root, spec)
	if err != nil {
		return err
	}
	tab, err := findCrontab()
	if err != nil {
		return err
	}
	id, err := addEntry(ctx, tab, j)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(s.Stderr, "warning: %s\n", w)
	}
	fmt.Fprintf(s.Stdout, "added cron entry %s: %s in %s\n", id, spec, root)
	fmt.Fprintf(s.Stdout, "  runs: git ralph loop %s\n", strings.Join(quoteAll(append([]string{"--skip-if-busy"}, j.flags...)), " "))
	fmt.Fprintf(s.Stdout, "  output goes to %s ('git ralph schedule remove %s' removes it)\n", j.log, id)
	return nil
}

// newJob checks everything the 2 a.m. run would trip over, now: the loop flags, the
// settings they resolve to with the repository's config, the prompt, the agent program,
// the push target and trust. It returns the job and what deserves a warning.
func (c *ScheduleAddCmd) newJob(ctx context.Context, s Streams, root, spec string) (job, []string, error) {
	lc, err := parseLoopFlags(c.LoopFlags)
	if err != nil {
		return job{}, nil, err
	}
	set, err := lc.resolve(root)
	if err != nil {
		return job{}, nil, err
	}
	if err := preflight(ctx, set); err != nil {
		return job{}, nil, err
	}
	if err := requireTrust(s, root, set.resolved); err != nil {
		return job{}, nil, err
	}
	exe, warnings, err := ralphExecutable()
	if err != nil {
		return job{}, nil, err
	}
	j := job{schedule: spec, repo: root, exe: exe, flags: cronFlags(c.LoopFlags),
		log: history.CronLogPath(root)}
	j.path = cronPath(programDirs(exe, set), userPath())
	if err := j.checkOneLine(); err != nil {
		return job{}, nil, err
	}
	return j, warnings, prepareLogs(root)
}

// addEntry writes the job's line at the end of the crontab under a new ID, unless the
// same schedule already runs the same loop in the same repository.
func addEntry(ctx context.Context, tab crontab, j job) (string, error) {
	table, err := tab.read(ctx)
	if err != nil {
		return "", err
	}
	list := entries(table)
	for _, e := range list {
		if e.Schedule == j.schedule && e.Repo == j.repo && slices.Equal(e.Flags, j.flags) {
			return "", withHint(fmt.Errorf("cron entry %s already runs this loop at %q in %s", e.ID, e.Schedule, e.Repo),
				"'git ralph schedule list' shows it; 'git ralph schedule remove %s' removes it", e.ID)
		}
	}
	if j.id, err = newEntryID(list); err != nil {
		return "", err
	}
	return j.id, tab.write(ctx, withLine(table, j.line()))
}

// prepareLogs makes the directory the cron log goes to, inside .ralph/ which stays out
// of git.
func prepareLogs(root string) error {
	if err := history.EnsureGitignore(root); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, history.LogsDir), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", history.LogsDir, err)
	}
	return nil
}

// ScheduleListCmd is `git ralph schedule list`.
type ScheduleListCmd struct {
	JSON bool `name:"json" help:"Print the entries as a JSON array."`
}

// Run prints git-ralph's entries of every repository; those of the repository the
// command runs in are marked with a *.
func (c *ScheduleListCmd) Run(ctx context.Context, s Streams) error {
	_, table, err := readCrontab(ctx)
	if err != nil {
		return err
	}
	list := entries(table)
	if root, err := repoRoot(ctx); err == nil {
		for i := range list {
			list[i].Current = list[i].Repo == root
		}
	}
	if c.JSON {
		return printEntriesJSON(s.Stdout, list)
	}
	printEntriesTable(s.Stdout, list)
	return nil
}

// printEntriesJSON prints the entries as an array, [] for none, with commands as
// they are written (no \u003e for >).
func printEntriesJSON(w io.Writer, list []cronEntry) error {
	if list == nil {
		list = []cronEntry{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(list)
}

// printEntriesTable prints one entry a line; a line edited beyond reading shows its
// command instead of its repository and flags.
func printEntriesTable(w io.Writer, list []cronEntry) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no git-ralph cron entries; add one with 'git ralph schedule add --cron SPEC'")
		return
	}
	fmt.Fprintf(w, "  %-6s  %-15s  %s\n", "ID", "SCHEDULE", "REPOSITORY  LOOP FLAGS")
	for _, e := range list {
		mark, what := " ", e.Repo+"  "+strings.Join(quoteAll(e.Flags), " ")
		if e.Current {
			mark = "*"
		}
		if e.Repo == "" {
			what = e.Command
		}
		fmt.Fprintf(w, "%s %-6s  %-15s  %s\n", mark, e.ID, e.Schedule, printable(strings.TrimSpace(what)))
	}
}

// ScheduleRemoveCmd is `git ralph schedule remove ID`.
type ScheduleRemoveCmd struct {
	ID string `arg:"" help:"The entry's ID, as 'git ralph schedule list' shows it."`
}

// Run removes the line of one entry and leaves every other byte of the crontab alone.
func (c *ScheduleRemoveCmd) Run(ctx context.Context, s Streams) error {
	tab, table, err := readCrontab(ctx)
	if err != nil {
		return err
	}
	var gone cronEntry
	for _, e := range entries(table) {
		if e.ID == c.ID {
			gone = e
		}
	}
	rest, found := withoutEntry(table, c.ID)
	if !found {
		return withHint(fmt.Errorf("no git-ralph cron entry has the ID %q", c.ID), "'git ralph schedule list' shows the IDs")
	}
	if err := tab.write(ctx, rest); err != nil {
		return err
	}
	fmt.Fprintf(s.Stdout, "removed cron entry %s: %s in %s\n", gone.ID, gone.Schedule, printable(gone.Repo))
	return nil
}

// quoteAll quotes each word for sh, so that flags read back as they were given.
func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellWord(w)
	}
	return out
}
