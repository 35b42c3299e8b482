package cancel

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// SignalError explains a failed kill(2).
func SignalError(h history.Holder, err error) error {
	switch {
	case errors.Is(err, syscall.ESRCH):
		return hints.Wrap(fmt.Errorf("the loop (pid %d) has already exited", h.PID), "'git ralph status' shows how it ended")
	case errors.Is(err, syscall.EPERM):
		return hints.Wrap(fmt.Errorf("not allowed to signal the loop (pid %d): %w", h.PID, err), "run 'git ralph cancel' as the user who started the loop")
	}
	return fmt.Errorf("signalling the loop (pid %d): %w", h.PID, err)
}

// PausedBetweenIterations says whether the loop waits on `pause` with no iteration in
// flight, so that cancel does not speak of a "current iteration" there is not.
func PausedBetweenIterations(root string) bool {
	state, err := history.LoadState(root)
	return err == nil && !state.PausedAt.IsZero() && !state.InIteration
}

// PauseStays says, when a pause is asked of the loop being cancelled, that the request
// outlives it: the pause is about the work tree's loop, not one process, so the next loop
// starts paused until 'git ralph resume' takes it back.
func PauseStays(ctx context.Context, root string) string {
	lockPath, err := gitops.GitPath(ctx, root, history.LockFile) // the pause request is kept beside the lock
	if err != nil {
		return ""
	}
	if _, asked, err := history.ReadPause(filepath.Join(filepath.Dir(lockPath), history.PauseFile)); err != nil || !asked {
		return ""
	}
	return fmt.Sprintf("; the pause stays: the next '%s' starts paused until 'git ralph resume'", status.LoopAt(ctx, root).StartCommand())
}

// StopLeftover stops the agent of a loop that died (kill -9) and that still runs:
// SIGTERM, grace, SIGKILL. It returns the pids it stopped, none when there was none.
func StopLeftover(root string, grace time.Duration) []int {
	state, err := history.LoadState(root)
	if err != nil || status.Leftover(state) == nil {
		return nil
	}
	return agent.StopOrphans(state.Run, state.PID, grace)
}
