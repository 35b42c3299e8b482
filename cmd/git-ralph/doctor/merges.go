package doctor

import (
	"context"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/loop/mergequeue"
)

// mergeCheck finishes or undoes what a killed merge left, as status, runs and merge do
// (mergequeue.Recover): a merge half landed, a scratch worktree, or a work tree with the
// base branch checked out whose files stayed behind the branch, which a 'git commit -a'
// there would turn into the merge's undoing. What it did is a warning; what it could not
// do (git refusing to bring a tree along over the user's changes) is still there when it
// looks again, and fails: the next loop there could commit the undoing.
func mergeCheck(ctx context.Context, root string) Result {
	const name = "merges"
	done, err := mergequeue.Recover(ctx, root)
	if err != nil {
		return warn(name, "the merge queue cannot be looked at: "+display.Printable(err.Error()), "'git ralph runs' says more")
	}
	if len(done) == 0 {
		return ok(name, "no merge was left half done and no work tree lags behind its branch")
	}
	if left, _ := mergequeue.Recover(ctx, root); len(left) > 0 {
		return fail(name, display.Printable(strings.Join(left, "; ")),
			"commit or put aside the changes in the way, then run the command it names")
	}
	return warn(name, "repaired now: "+display.Printable(strings.Join(done, "; ")), "")
}
