package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// HistoryCmd is `git ralph history`.
type HistoryCmd struct {
	Limit    int    `default:"20" help:"Show the newest N iterations; 0 shows all (default: 20)." placeholder:"N"`
	JSON     bool   `name:"json" help:"Print the records as a JSON array, oldest first."`
	Diff     string `help:"Print iteration N's saved diff, or with A..B the diff from the start of A to the end of B." placeholder:"N|A..B"`
	Stat     bool   `help:"With --diff, print a diffstat instead of the patch."`
	Verbose  *int   `help:"Print iteration N in full: its record, then the prompt its agent was given (as kept: secrets redacted, at most 256 KiB)." placeholder:"N"`
	LoopFlag `embed:""`
}

// Run prints the table, the JSON records or a diff.
func (c *HistoryCmd) Run(ctx context.Context, s Streams) error {
	if err := c.check(); err != nil {
		return err
	}
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	store, err := history.OpenStore(root)
	if err != nil {
		return err
	}
	if c.Diff != "" {
		return c.printDiff(ctx, s.Stdout, root, store)
	}
	if c.Verbose != nil {
		return printIteration(s, store, *c.Verbose)
	}
	recs, bad, err := store.Scan(c.Limit)
	if err != nil {
		return err
	}
	reportBadRecords(s.Stderr, bad)
	if c.JSON {
		return printJSON(s.Stdout, recs)
	}
	if err := printTable(s.Stdout, recs); err != nil {
		return err
	}
	return printPruned(s.Stdout, recs)
}

// reportBadRecords names the records that could not be read and were left out.
func reportBadRecords(w io.Writer, bad []history.BadRecord) {
	for _, b := range bad {
		fmt.Fprintf(w, "warning: iteration %d left out: %s\n", b.Iteration, display.PrintableText(b.Err.Error()))
	}
	if len(bad) > 0 {
		fmt.Fprintf(w, "hint: the other iterations are listed; move a damaged record.toml aside or fix it by hand\n")
	}
}

// printPruned says which of the listed iterations lost their output and diff to the
// retention settings.
func printPruned(w io.Writer, recs []history.Record) error {
	var pruned []int
	for _, r := range recs {
		if r.Pruned {
			pruned = append(pruned, r.Iteration)
		}
	}
	if len(pruned) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "\n%s: output and diff pruned (history_keep, history_max_size; see 'git ralph config')\n", describeIterations(pruned))
	return err
}

// describeIterations is "iteration 3" or "iterations 1-4, 6".
func describeIterations(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ns[i], ns[j]))
		} else {
			parts = append(parts, strconv.Itoa(ns[i]))
		}
		i = j + 1
	}
	if len(ns) == 1 {
		return "iteration " + parts[0]
	}
	return "iterations " + strings.Join(parts, ", ")
}

// check refuses combinations of flags that mean nothing.
func (c *HistoryCmd) check() error {
	switch {
	case c.Limit < 0:
		return hints.Wrap(fmt.Errorf("--limit %d is negative", c.Limit), "pass a count, or 0 for the whole history")
	case c.Stat && c.Diff == "":
		return hints.Wrap(errors.New("--stat needs --diff"), "e.g. 'git ralph history --diff 3 --stat'")
	case c.JSON && c.Diff != "":
		return hints.Wrap(errors.New("--json and --diff contradict each other"), "the records are in 'git ralph history --json', the diffs in --diff")
	case c.Verbose != nil && *c.Verbose < 1:
		return hints.Wrap(fmt.Errorf("--verbose %d is not an iteration number", *c.Verbose), "e.g. 'git ralph history --verbose 3'; 'git ralph history' lists the iterations")
	case c.Verbose != nil && (c.JSON || c.Diff != ""):
		return hints.Wrap(errors.New("--verbose shows one iteration, and --json or --diff something else"), "'git ralph history --verbose N' alone, or '--diff N' for its change")
	}
	return nil
}

// printJSON writes the records as an indented JSON array; no records is [].
func printJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	if string(data) == "null" {
		data = []byte("[]")
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

func printTable(w io.Writer, recs []history.Record) error {
	if len(recs) == 0 {
		_, err := fmt.Fprintln(w, "no iterations recorded yet; 'git ralph loop' records one per iteration")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ITER\tRUN\tMODE\tOUTCOME\tDURATION\tCOMMIT\tCHANGES")
	for _, r := range recs {
		// a record.toml can be committed by the repository: its strings are spelled out
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Iteration, display.Printable(orDash(r.Run)), display.Printable(orDash(r.Mode)),
			display.Printable(outcomeText(r)), display.Duration(time.Duration(r.DurationMS)*time.Millisecond),
			display.Printable(orDash(display.ShortHash(r.CommitAfter))), changesText(r))
	}
	return tw.Flush()
}

// outcomeText is the record's outcome with what a reader would want to know next to it.
func outcomeText(r history.Record) string {
	switch {
	case r.Outcome == "":
		return "-"
	case r.Stopped != "":
		return r.Outcome + " (" + r.Stopped + ")"
	case r.TimedOut:
		return r.Outcome + " (timeout)"
	case r.KilledBy != "":
		return r.Outcome + " (" + r.KilledBy + ")"
	case r.Validation != "" && r.Validation != "passed":
		return r.Outcome + " (validation " + strings.SplitN(r.Validation, ":", 2)[0] + ")" // "failed", "timed out after 10m0s"
	case r.Until != "":
		promise := "promise " + strings.SplitN(r.Until, ":", 2)[0] // "passed", "failed", "not run"
		if r.Judge != nil && r.Judge.Verdict != "PASS" {           // the judge kept a passing promise from ending it
			promise += ", judge: " + r.Judge.Verdict
		}
		return r.Outcome + " (" + promise + ")"
	case r.Judge != nil:
		return r.Outcome + " (judge: " + r.Judge.Verdict + ")" // PASS, FAIL, error
	}
	return r.Outcome
}

// changesText is "+120 -30 (5 files)", with ", pruned" when the saved diff and output
// are gone; a crashed iteration's changes were never measured.
func changesText(r history.Record) string {
	text := "none"
	switch {
	case r.Outcome == string(loop.OutcomeCrashed):
		text = "not measured"
	case r.FilesChanged > 0:
		text = fmt.Sprintf("+%d -%d (%s)", r.Insertions, r.Deletions, display.Plural(r.FilesChanged, "file"))
	}
	if r.Pruned {
		text += ", pruned"
	}
	return text
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// iterationSpan is a parsed --diff: one iteration (First == Last) or A..B.
type iterationSpan struct {
	First, Last int
	Range       bool
}

func parseSpan(arg string) (iterationSpan, error) {
	a, b, isRange := strings.Cut(arg, "..")
	first, err1 := strconv.Atoi(a)
	last := first
	var err2 error
	if isRange {
		last, err2 = strconv.Atoi(b)
	}
	bad := hints.Wrap(fmt.Errorf("--diff %q is not an iteration number or a range A..B", arg),
		"e.g. --diff 3 or --diff 2..5; 'git ralph history' lists the iterations")
	switch {
	case err1 != nil || err2 != nil || first < 1 || last < 1:
		return iterationSpan{}, bad
	case first > last:
		return iterationSpan{}, hints.Wrap(fmt.Errorf("--diff %s: %d comes after %d", arg, first, last), "write the older iteration first: --diff %d..%d", last, first)
	}
	return iterationSpan{First: first, Last: last, Range: isRange}, nil
}

// printDiff prints the patch or the diffstat of --diff.
func (c *HistoryCmd) printDiff(ctx context.Context, w io.Writer, root string, store *history.Store) error {
	span, err := parseSpan(c.Diff)
	if err != nil {
		return err
	}
	if span.Range {
		return c.rangeDiff(ctx, w, root, store, span)
	}
	return c.savedDiff(ctx, w, root, store, span.First)
}

// savedDiff streams iteration n's diff as it was saved, so it needs none of git's
// objects and survives a rebase or gc.
func (c *HistoryCmd) savedDiff(ctx context.Context, w io.Writer, root string, store *history.Store, n int) error {
	f, err := repofile.OpenOwn(store.DiffPath(n), store.DiffPath(n)) // never through a committed symlink
	if errors.Is(err, fs.ErrNotExist) {
		return hints.MissingIteration(store, n, "saved diff")
	}
	if err != nil {
		return fmt.Errorf("reading the diff of iteration %d: %w", n, err)
	}
	defer f.Close()
	if !c.Stat {
		if _, err := io.Copy(w, f); err != nil {
			return fmt.Errorf("printing the diff of iteration %d: %w", n, err)
		}
		return nil
	}
	if info, err := f.Stat(); err != nil || info.Size() == 0 {
		return err // an iteration that changed nothing has an empty diff and no stat
	}
	return gitsnap.PatchStat(ctx, root, f, w)
}

// rangeDiff diffs the work tree kept at the start of span.First against the one kept at
// the end of span.Last.
func (c *HistoryCmd) rangeDiff(ctx context.Context, w io.Writer, root string, store *history.Store, span iterationSpan) error {
	from, err := keptTree(ctx, root, store, span.First, "before-tree")
	if err != nil {
		return err
	}
	to, err := keptTree(ctx, root, store, span.Last, "after-tree")
	if err != nil {
		return err
	}
	if c.Stat {
		return gitsnap.DiffStatText(ctx, root, from, to, w)
	}
	return gitsnap.Diff(ctx, root, from, to, w)
}

// keptTree resolves one of the trees the loop keeps for iteration n.
func keptTree(ctx context.Context, root string, store *history.Store, n int, which string) (string, error) {
	ref, err := loop.CheckpointRef(ctx, root, n, which)
	if err != nil {
		return "", err
	}
	tree, err := gitops.ResolveRef(ctx, root, ref)
	if err != nil || tree != "" {
		return tree, err
	}
	return "", hints.MissingIteration(store, n, "checkpoint "+ref)
}
