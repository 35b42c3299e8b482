package ledgerview

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history/ledger"
	"github.com/git-ralph/git-ralph/units"
)

// maxSubject bounds the subject shown on a line.
const maxSubject = 60

// Print writes the ledger for people: a line per iteration on the commit it noted, the
// commits it made before that one, runs of commits without a note folded into one line,
// then why the unreadable notes cannot be read, and the totals. Every value from the notes and the commits is shown terminal-safe.
func Print(w io.Writer, l *Ledger) error {
	fmt.Fprintf(w, "Ledger of %s: %s\n", display.Printable(l.Range), display.PrintableText(l.Base))
	if len(l.Commits) == 0 {
		_, err := fmt.Fprintln(w, "No commits in this range.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMIT\tRUN\tITERATION\tMODE\tAGENT\tOUTCOME\tDURATION\tTOKENS\tCACHE\tCOST\tSUBJECT")
	unnoted := 0
	for _, c := range l.Commits {
		if len(c.Entries) == 0 && len(c.Unreadable) == 0 && c.MadeBy == "" {
			unnoted++
			continue
		}
		foldUnnoted(tw, &unnoted)
		printCommit(tw, c)
	}
	foldUnnoted(tw, &unnoted)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range l.Commits {
		for _, u := range c.Unreadable {
			fmt.Fprintf(w, "%.7s: unreadable note: %s\n", c.Hash, display.PrintableText(u.Reason))
		}
	}
	if l.Truncated {
		fmt.Fprintf(w, "(only the newest %d commits are listed: give a shorter range)\n", MaxCommits)
	}
	_, err := fmt.Fprintln(w, totals(l))
	return err
}

// foldUnnoted writes one line for the run of commits without a note just passed.
func foldUnnoted(w io.Writer, n *int) {
	if *n > 0 {
		fmt.Fprintf(w, "…\t(%d without a note)\n", *n)
		*n = 0
	}
}

func printCommit(w io.Writer, c Commit) {
	subject := display.Printable(cut(c.Subject, maxSubject))
	if c.MadeBy != "" {
		fmt.Fprintf(w, "%.7s\t(iteration of %.7s)\t\t\t\t\t\t\t\t\t%s\n", c.Hash, c.MadeBy, subject)
	}
	for _, e := range c.Entries {
		fmt.Fprintf(w, "%.7s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Hash, display.Printable(e.Run), e.Iteration,
			display.Printable(e.Mode), display.Printable(agent(e.Entry)), display.Printable(e.Outcome),
			display.Duration(e.Duration), tokens(e.Tokens()), tokens(e.Cache()), cost(e.Entry), subject)
	}
	if len(c.Unreadable) > 0 {
		fmt.Fprintf(w, "%.7s\t(unreadable note)\t\t\t\t\t\t\t\t\t%s\n", c.Hash, subject)
	}
}

// agent is the preset and model, as far as the entry says.
func agent(e ledger.Entry) string {
	switch {
	case e.Agent == "" && e.Model == "":
		return "custom"
	case e.Model == "":
		return e.Agent
	case e.Agent == "":
		return e.Model
	}
	return e.Agent + "/" + e.Model
}

func tokens(n int64) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

// cost is the entry's cost, or that its agent reported none: never a zero it did not say.
func cost(e ledger.Entry) string {
	if !e.CostReported {
		return "not reported"
	}
	return dollars(e.CostUSD)
}

func dollars(usd float64) string { return fmt.Sprintf("$%.4f", usd) }

// totalCost is the range's cost: a lower bound when some iterations reported none, and
// no figure when none reported one.
func totalCost(t ledger.Totals) string {
	switch {
	case t.WithoutCost == 0:
		return dollars(t.CostUSD)
	case t.WithoutCost == t.Iterations:
		return units.NotReported
	}
	return "at least " + dollars(t.CostUSD)
}

// totals is the closing line: iterations, time, tokens and cost, and what they leave out.
func totals(l *Ledger) string {
	t := l.Totals
	s := fmt.Sprintf("Total: %s, %s, %s tokens", display.Plural(t.Iterations, "iteration"),
		display.Duration(t.Duration.Round(time.Millisecond)), strconv.FormatInt(t.Tokens(), 10))
	if t.Cache() > 0 {
		s += fmt.Sprintf(", %d cache tokens", t.Cache())
	}
	s += ", " + totalCost(t.Totals)
	var notes []string
	if t.WithoutCost > 0 {
		notes = append(notes, display.Plural(t.WithoutCost, "iteration")+" reported no cost")
	}
	if l.WithoutNote > 0 {
		notes = append(notes, display.Plural(l.WithoutNote, "commit")+" without a note")
	}
	if n := unreadable(l); n > 0 {
		notes = append(notes, display.Plural(n, "unreadable note"))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

func unreadable(l *Ledger) int {
	n := 0
	for _, c := range l.Commits {
		n += len(c.Unreadable)
	}
	return n
}

// cut shortens s to n runes with an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
