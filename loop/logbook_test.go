package loop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The saved output is redacted on its way to the file, in the part written as it came and
// in the end added from the ring buffer, while the limit still counts the agent's bytes.
func TestOutputLogRedactsBothParts(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Zq7", 31) + "AA"
	out := "start " + key + "\n" + strings.Repeat("filler line\n", 50) + "cut " + key + "\nend " + key + "\n"
	path := filepath.Join(t.TempDir(), "output.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	l := newOutputLog(f, 200)
	for p := out; len(p) > 0; p = p[min(len(p), 7):] {
		l.Write([]byte(p[:min(len(p), 7)]))
	}
	tail := out[len(out)-150:] // begins inside the "cut" line's key
	if err := l.close([]byte(tail), int64(len(out))); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got := string(data)
	if strings.Contains(got, "Zq7Zq7") {
		t.Fatalf("a piece of the key reached the file:\n%s", got)
	}
	for _, want := range []string{"start [REDACTED:anthropic-key]\n", "end [REDACTED:anthropic-key]\n", "bytes of output omitted"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
}

// The end-of-iteration bookkeeping outlives an interrupt, for its grace period only. The
// grace runs on synctest's clock: on a busy machine the real one let the test's own
// waits run out first.
func TestBookkeepingIsBoundedAfterAnInterrupt(t *testing.T) {
	interrupted := errors.New("interrupted")
	t.Run("not cancelled with the loop, then cut after the grace period", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
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
	})
	t.Run("a second Ctrl+C cuts it at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
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
	})
	t.Run("no interrupt, no bound", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
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
	})
}
