package loop

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The end-of-iteration bookkeeping outlives an interrupt, for its grace period only.
func TestBookkeepingIsBoundedAfterAnInterrupt(t *testing.T) {
	interrupted := errors.New("interrupted")
	t.Run("not cancelled with the loop, then cut after the grace period", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		bctx, stop := bookkeeping(ctx, 200*time.Millisecond, nil)
		defer stop()
		cancel(interrupted)
		select {
		case <-bctx.Done():
			t.Fatal("the bookkeeping was cancelled with the loop")
		case <-time.After(100 * time.Millisecond):
		}
		select {
		case <-bctx.Done():
			if !errors.Is(context.Cause(bctx), interrupted) {
				t.Errorf("cause = %v, want the interrupt", context.Cause(bctx))
			}
		case <-time.After(2 * time.Second):
			t.Fatal("the bookkeeping was not cut a grace period after the interrupt")
		}
	})
	t.Run("a second Ctrl+C cuts it at once", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		hurry := make(chan struct{})
		bctx, stop := bookkeeping(ctx, time.Hour, hurry)
		defer stop()
		cancel(interrupted)
		close(hurry)
		select {
		case <-bctx.Done():
		case <-time.After(2 * time.Second):
			t.Fatal("hurry did not cut the bookkeeping")
		}
	})
	t.Run("no interrupt, no bound", func(t *testing.T) {
		bctx, stop := bookkeeping(context.Background(), time.Millisecond, nil)
		select {
		case <-bctx.Done():
			t.Fatal("the bookkeeping was cut without an interrupt")
		case <-time.After(50 * time.Millisecond):
		}
		stop()
		if bctx.Err() == nil {
			t.Error("stop did not end the bookkeeping context")
		}
	})
}
