package historyview

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
)

// ReportBad names the records that could not be read and were left out.
func ReportBad(w io.Writer, bad []history.BadRecord) {
	for _, b := range bad {
		fmt.Fprintf(w, "warning: iteration %d left out: %s\n", b.Iteration, display.PrintableText(b.Err.Error()))
	}
	if len(bad) > 0 {
		fmt.Fprintf(w, "hint: the other iterations are listed; move a damaged record.toml aside or fix it by hand\n")
	}
}

// Pruned says which of the listed iterations lost their output and diff to the
// retention settings.
func Pruned(w io.Writer, recs []history.Record) error {
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

// Table is the history's table of recs, a line each, or a sentence where there are none.
func Table(w io.Writer, recs []history.Record) error {
	if len(recs) == 0 {
		_, err := fmt.Fprintln(w, "no iterations recorded yet; 'git ralph loop' records one per iteration")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ITER\tRUN\tMODE\tOUTCOME\tDURATION\tCOMMIT\tCHANGES")
	for _, r := range recs {
		// a record.toml can be committed by the repository: its strings are spelled out
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Iteration, display.Printable(display.OrDash(r.Run)), display.Printable(display.OrDash(r.Mode)),
			display.Printable(outcomeText(r)), display.Duration(time.Duration(r.DurationMS)*time.Millisecond),
			display.Printable(display.OrDash(display.ShortHash(r.CommitAfter))), changesText(r))
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
