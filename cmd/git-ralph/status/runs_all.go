package status

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// RepoRun is a loop of one of the user's repositories, for `runs --all`: its JSON form
// is a Run's with the repository (its main work tree) first.
type RepoRun struct {
	Repository string `json:"repository"`
	Run
}

// RunsOfRepos reads the loops of each repository (its main work tree's path), as `runs`
// reads them, without repairing anything in them; a repository that cannot be read is
// one of problems, and the others are read all the same.
func RunsOfRepos(ctx context.Context, repos []string, now time.Time) (runs []RepoRun, problems []error) {
	runs = []RepoRun{}
	for _, repo := range repos {
		members, bad, err := fleet.Members(ctx, repo)
		if err != nil {
			problems = append(problems, fmt.Errorf("the repository %s: %w", repo, err))
			continue
		}
		for _, e := range bad {
			problems = append(problems, fmt.Errorf("the repository %s: %w", repo, e))
		}
		for _, r := range RunsOf(ctx, repo, members, now) {
			runs = append(runs, RepoRun{Repository: repo, Run: r})
		}
	}
	return runs, problems
}

// PrintRepoRuns prints the loops of every repository: the table of `runs` with the
// repository first.
func PrintRepoRuns(w io.Writer, runs []RepoRun, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REPOSITORY\t"+runsHeader)
	for _, r := range runs {
		fmt.Fprintln(tw, display.Printable(r.Repository)+"\t"+runRow(r.Run, now))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nIn a repository, 'git ralph status --loop NAME' shows a loop closer.")
	return err
}
