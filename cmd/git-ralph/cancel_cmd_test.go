package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// cancel --rollback waits for the stopped loop's lock a bounded time, and rolls nothing
// back when the loop does not let go of it.
func TestAwaitLockGivesUpAfterItsBound(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := gitops.Init(ctx, dir, "main"); err != nil {
		t.Fatal(err)
	}
	held, err := launch.AcquireLock(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = awaitLock(ctx, dir, history.Holder{PID: 4242}, 200*time.Millisecond)
	var exit *exitcode.Error
	if !errors.As(err, &exit) || exit.Code != exitcode.Busy {
		t.Fatalf("awaitLock on a held lock = %v, want exit %d", err, exitcode.Busy)
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Errorf("awaitLock gave up after %s, before its bound", waited)
	}
	go func() { time.Sleep(100 * time.Millisecond); held.Release() }()
	lock, err := awaitLock(ctx, dir, history.Holder{PID: 4242}, 10*time.Second)
	if err != nil {
		t.Fatalf("awaitLock after the loop let go = %v", err)
	}
	lock.Release()
}
