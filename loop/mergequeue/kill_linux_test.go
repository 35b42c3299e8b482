package mergequeue

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/history"
)

// startGroup starts sleep as the leader of a process group of its own, with env added to
// its environment; the channel closes when it has ended. The test kills it at its end.
func startGroup(t *testing.T, env ...string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	return cmd, done
}

// stopped reports whether the group's sleep was ended by a signal. When it should have
// been, it is waited for while it lasts (left alone, it ends by itself after its minute,
// with no signal): a busy machine may take a while to stop it. When it should not have
// been, two seconds without its end show it.
func stopped(cmd *exec.Cmd, done <-chan struct{}, want bool) bool {
	if want {
		<-done
	} else {
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			return false
		}
	}
	status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && status.Signaled()
}

// The process group a dead merge wrote down for its validate command is stopped only
// when it is still that command's: the number may since name another program's group
// (pids wrap around: 32768 of them on many machines), which the recovery must not kill.
func TestRecoverStopsOnlyTheValidatorItWroteDown(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		env      []string
		wantKill bool
	}{
		{"the validate command of the merge", []string{"RALPH_MERGE=k"}, true},
		{"another program's group under the same number", nil, false},
		{"the validate command of another loop's merge", []string{"RALPH_MERGE=other"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, before, result := halfMerged(t)
			group, done := startGroup(t, tc.env...)
			history.SaveMerge(r.common, history.Merge{Name: "k", State: history.MergeMerging, How: gitmerge.HowMerge,
				BaseBranch: "refs/heads/main", RequestedAt: time.Now(), Phase: history.PhaseValidating,
				Scratch: r.scratchPath("k"), BaseBefore: before, Tip: git(t, r.dir, "rev-parse", "ralph/k"), Result: result,
				Validator: group.Process.Pid})
			if notes, err := Recover(ctx, r.dir); err != nil || len(notes) == 0 {
				t.Fatalf("Recover = %v, %v; want a note", notes, err)
			}
			if got := stopped(group, done, tc.wantKill); got != tc.wantKill {
				t.Errorf("the group was stopped: %v, want %v", got, tc.wantKill)
			}
		})
	}
}
