package fleet

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// Quote makes a text a repository or a record supplied safe to show on a terminal
// (the commands' display.Printable): fleet does not import the commands' packages, so
// the one who prints hands it over.
type Quote func(string) string

// ScoreText is the candidate's score as the ranking shows it: "-" when the best-of has no
// score command (scored false), "failed" when the command gave no number.
func (f Figures) ScoreText(scored bool) string {
	switch {
	case !scored:
		return "-"
	case f.Score == nil:
		return "failed"
	}
	return strconv.FormatFloat(*f.Score, 'g', -1, 64)
}

// DiffText is the size of the candidate's work: "12 lines" added and removed; "-" when
// its worktree was not found.
func (f Figures) DiffText() string {
	switch {
	case f.Path == "":
		return "-"
	case f.DiffLines == 1:
		return "1 line"
	}
	return fmt.Sprintf("%d lines", f.DiffLines)
}

// StoppedText is why the candidate's run stopped, "-" when it is not known.
func (f Figures) StoppedText() string {
	if f.Reason == "" {
		return "-"
	}
	return string(f.Reason)
}

// WriteTable writes the candidates ranked (best first) as a table, then the problems of
// their figures, one line each: the score command's, then the rest. scored says whether
// the best-of had a score command.
func WriteTable(w io.Writer, ranked []Figures, scored bool, quote Quote) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tCANDIDATE\tSTOPPED\tVALIDATION\tSCORE\tITERATIONS\tDIFF")
	for i, f := range ranked {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", i+1, quote(f.Name), quote(f.StoppedText()),
			quote(f.Validation.Text()), f.ScoreText(scored), f.Iterations, f.DiffText())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range ranked {
		if f.ScoreProblem != "" {
			fmt.Fprintf(w, "%s: score: %s\n", quote(f.Name), quote(f.ScoreProblem))
		}
		if f.Problem != "" {
			fmt.Fprintf(w, "%s: %s\n", quote(f.Name), quote(f.Problem))
		}
	}
	return nil
}

// WriteWinner names the winner, best, with its branch and worktree, says when even its
// validation failed, and gives the command that merges it.
func WriteWinner(w io.Writer, best Figures, quote Quote) error {
	where := best.Path
	if where == "" {
		where = "-"
	}
	fmt.Fprintf(w, "\nWinner: %s (branch %s, %s)\n", quote(best.Name), quote(best.Branch), quote(where))
	if best.Validation.Result == ValidationFailed {
		fmt.Fprintln(w, "Its validation failed too: no candidate passed.")
	}
	fmt.Fprintf(w, "Merge it: git ralph merge %s\n", quote(best.Name))
	_, err := fmt.Fprintln(w, "The other candidates stay until you discard them; 'git ralph runs' lists them.")
	return err
}
