package mergeview

import (
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/loop/mergequeue"
)

// ResolveContext is what the merge-mode agent is told: the base branch, and why the
// queue refused the branch last time.
func ResolveContext(target mergequeue.Target) string {
	base := strings.TrimPrefix(target.BaseBranch(), "refs/heads/")
	var b strings.Builder
	fmt.Fprintf(&b, "The base branch is `%s`: merge it into this branch (`git merge %s`).\n", base, base)
	last, found, err := target.Last()
	switch {
	case err != nil || !found || last.State != "needs-review":
	case last.Problem == "conflict":
		fmt.Fprintf(&b, "The merge queue refused this branch: merging it into %s conflicts in:\n", base)
		for _, f := range last.Conflicts {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	default:
		fmt.Fprintf(&b, "The merge queue refused this branch: the merged result fails validation (`%s`). The end of its output:\n\n```\n%s\n```\n", last.Validate, last.Output)
	}
	return b.String()
}
