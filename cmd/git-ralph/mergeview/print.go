package mergeview

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/notify"
	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/loop/mergequeue"
)

// ReviewError says why the queue left the merge of the loop name for review (out.State
// is "needs-review"): the conflicting files, or the validation's failure with the end of
// its output; the base branch was not moved, and the hint says what takes it up.
func ReviewError(name string, out mergequeue.Outcome) error {
	base := strings.TrimPrefix(out.BaseBranch, "refs/heads/")
	if out.Problem == "conflict" {
		return hints.Wrap(
			fmt.Errorf("merging ralph/%s into %s conflicts in:\n  %s\n%s was left at %s; the loop needs review", name, base,
				strings.Join(out.Conflicts, "\n  "), base, display.ShortHash(out.BaseBefore)),
			"'git ralph merge %s --resolve' has the loop's agent merge %s in and resolve them; or do it in its worktree yourself and run 'git ralph merge %s' again", name, base, name)
	}
	return hints.Wrap(
		fmt.Errorf("the merge of ralph/%s into %s fails validation (%s); the end of its output:\n%s\n%s was left at %s; the loop needs review", name, base,
			out.Validate, display.IndentOutput(out.Output), base, display.ShortHash(out.BaseBefore)),
		"'git ralph merge %s --resolve' has the loop's agent merge %s in and make validation pass", name, base)
}

// Merged says what became of a merge that did not need review: merged, how, where the
// base branch is now, and which work trees with the base checked out followed; or that
// there was nothing to merge.
func Merged(w io.Writer, name string, out mergequeue.Outcome) {
	base := strings.TrimPrefix(out.BaseBranch, "refs/heads/")
	if out.AlreadyMerged {
		fmt.Fprintf(w, "%s already holds every commit of ralph/%s: nothing to merge.\n", base, name)
		return
	}
	how := "merge commit"
	if out.FastForward {
		how = "fast-forward"
	} else if out.How != gitmerge.HowMerge {
		how = out.How
	}
	fmt.Fprintf(w, "Merged ralph/%s into %s (%s): %s is now at %s.\n", name, base, how, base, display.ShortHash(out.Result))
	if strings.TrimSpace(out.Validate) == "" {
		fmt.Fprintf(w, "The merged result was not validated: no validate command (--validate, RALPH_VALIDATE or validate in the configuration).\n")
	}
	printTrees(w, base, out)
}

// printTrees says which work trees with the base checked out followed, and how to bring
// along one that was left behind.
func printTrees(w io.Writer, base string, out mergequeue.Outcome) {
	for _, t := range out.Checkouts {
		if t.Updated {
			fmt.Fprintf(w, "Updated the files of %s.\n", display.Printable(t.Path))
			continue
		}
		fmt.Fprintf(w, "The work tree %s has %s checked out and was not updated (%s): its files are still those of %s.\n",
			display.Printable(t.Path), base, display.PrintableText(t.Problem), display.ShortHash(out.BaseBefore))
		fmt.Fprintf(w, "To update them, keeping your changes (git refuses if they touch the merged files): %s\n",
			display.Printable(mergequeue.UpdateCommand(t.Path, out.BaseBefore, out.Result)))
	}
}

// ReviewNote is the notification of a merge the queue left for review; code is the exit
// code that says which problem.
func ReviewNote(where notify.Where, name string, out mergequeue.Outcome, code int) notify.Message {
	base := strings.TrimPrefix(out.BaseBranch, "refs/heads/")
	if out.Problem == "conflict" {
		return notify.MergeReview(where, "ralph/"+name, base, "conflict", strings.Join(out.Conflicts, ", "), code, time.Now())
	}
	return notify.MergeReview(where, "ralph/"+name, base, "validation", out.Validate, code, time.Now())
}
