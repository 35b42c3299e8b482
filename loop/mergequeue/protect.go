package mergequeue

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/pathglob"
)

// refuseProtected refuses a branch whose change since its merge base with the base
// branch touches a protected path (Request.Protect), unless the request allows it: the
// tests a loop's agent was judged by land only when a person says so.
func (r repo) refuseProtected(ctx context.Context, req Request, loop history.WorktreeLoop) error {
	if req.AllowProtected || len(req.Protect) == 0 {
		return nil
	}
	base, tip, err := r.tips(ctx, loop)
	if err != nil {
		return err
	}
	changed, err := gitmerge.BranchChanges(ctx, r.dir, base, tip)
	if err != nil {
		return err
	}
	touched := pathglob.Touched(req.Protect, changed)
	if len(touched) == 0 {
		return nil
	}
	branch, into := branchName(loop.Branch), branchName(loop.BaseBranch)
	return &Error{Err: fmt.Errorf("%s changes protected paths: %s; nothing was merged", branch, strings.Join(touched, ", ")),
		Advice: fmt.Sprintf("see the change with 'git diff %s...%s -- %s'; if it is meant, merge with 'git ralph merge %s --allow-protected'",
			into, branch, strings.Join(touched, " "), loop.Name)}
}
