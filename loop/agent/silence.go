package agent

import (
	"sync/atomic"
	"time"
)

// silence knows when the agent last wrote anything, for the silent-agent watchdog
// (Spec.OutputTimeout). It is a sink of the capture: every write counts as a sign of
// life, whatever it says.
type silence struct {
	last atomic.Int64 // UnixNano of the last write, or of the start
}

func newSilence() *silence {
	s := &silence{}
	s.last.Store(time.Now().UnixNano())
	return s
}

func (s *silence) Write(b []byte) (int, error) {
	s.last.Store(time.Now().UnixNano())
	return len(b), nil
}

// watch returns a channel closed once nothing was written for limit, and the function
// that ends the watch. With limit 0 the channel never fires.
func (s *silence) watch(limit time.Duration) (<-chan struct{}, func()) {
	fired := make(chan struct{})
	if limit <= 0 {
		return fired, func() {}
	}
	done := make(chan struct{})
	go func() {
		timer := time.NewTimer(limit)
		defer timer.Stop()
		for {
			select {
			case <-done:
				return
			case <-timer.C:
			}
			quiet := time.Since(time.Unix(0, s.last.Load()))
			if quiet >= limit {
				close(fired)
				return
			}
			timer.Reset(limit - quiet) // it spoke since: wait for the rest of a full silence
		}
	}()
	return fired, func() { close(done) }
}
