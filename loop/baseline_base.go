package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/history"
)

// meeting is where the loop's branch meets its base branch (git merge-base), for a
// worktree loop; "" for another, or when git cannot say.
func (b *baseline) meeting(ctx context.Context) string {
	if b.branch == "" {
		return ""
	}
	mb, err := gitops.MergeBase(ctx, b.dir, "HEAD", b.branch)
	if err != nil {
		return ""
	}
	return mb
}

// follow takes the baseline again when a worktree loop's branch took in new commits of
// its base (a merge or rebase moved where the two meet): the tests failing on the base
// now are not the agent's either. It is taken of the base alone, at the new meeting
// point, in a temporary worktree, so that the loop's own work is not in it.
func (b *baseline) follow(ctx context.Context) {
	was := b.state.BaselineBase
	now := b.meeting(ctx)
	if was == "" || now == "" || now == was || ctx.Err() != nil {
		return
	}
	tmp, err := os.MkdirTemp("", "ralph-baseline-")
	if err != nil {
		b.procs.warn(fmt.Sprintf("the base moved, but its baseline cannot be taken: %v", err))
		return
	}
	defer os.RemoveAll(tmp)
	wt := filepath.Join(tmp, "base")
	if err := gitwt.Add(ctx, b.dir, wt, now); err != nil {
		b.procs.warn(fmt.Sprintf("the base moved, but its baseline cannot be taken: %v", err))
		return
	}
	defer gitwt.ForceRemove(context.WithoutCancel(ctx), b.dir, wt)
	in := *b
	in.procs.dir = wt
	v, rep := in.run(ctx, 0, filepath.Join(b.dir, BaselineLog))
	if !v.Ran {
		return
	}
	b.state.BaselineBase = now
	b.keep(v, rep, now)
	b.report(BaselineTaken{Command: b.command, Format: b.format, Read: rep.Format, Moved: true, Commit: now,
		ExitCode: v.ExitCode, TimedOut: v.TimedOut, Duration: v.Duration, Tests: rep.Cases(), Failing: rep.Failed(), Log: BaselineLog})
}

// committedState reports whether the state file is in the repository's index (committed,
// or added): a kept baseline from it is the repository's word that tests failed before
// the run, which would loosen the user's validation, so it is taken again instead.
func (b *baseline) committedState(ctx context.Context) bool {
	_, err := gitops.Git(ctx, b.dir, "ls-files", "--error-unmatch", "--", history.Dir+"/state.toml")
	return err == nil
}
