package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
)

// gatedWriter holds every write until open is closed, like a terminal paused by Ctrl+S.
type gatedWriter struct {
	open    chan struct{}
	out     testio.Buffer
	flushed chan struct{}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.open
	return g.out.Write(p)
}

func (g *gatedWriter) Flush() error {
	close(g.flushed)
	return nil
}

// A reader too slow for the output loses some of it, and is told where; a writer that
// holds lines back (the --verbose rendering) is flushed at the end of the run.
func TestLiveStreamNotesAGapAndFlushes(t *testing.T) {
	w := &gatedWriter{open: make(chan struct{}), flushed: make(chan struct{})}
	l := newLiveStream(w)
	for i := range liveQueue * 3 {
		l.Write([]byte(strings.Repeat("x", i%7) + "line\n"))
	}
	close(w.open)
	// the writer is open: the queue drains, however slowly a busy machine runs it
	for deadline := time.Now().Add(time.Minute); len(l.queue) > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	l.Write([]byte("the end"))
	l.close(time.Minute)
	select {
	case <-w.flushed:
	default:
		t.Fatal("the writer was not flushed at the end of the run")
	}
	got := w.out.String()
	if !strings.Contains(got, gapNote) {
		t.Errorf("no note of the gap in %q", got)
	}
	if !strings.HasSuffix(got, "the end") {
		t.Errorf("the output's end is missing: %q", got[max(0, len(got)-100):])
	}
}

// A flood of output with a reader that has fallen behind costs no memory per chunk: the
// live copy reuses its chunks (a fresh copy of every 64 KiB chunk of 1 GiB of output once
// grew git-ralph's peak RSS by tens of MiB).
func TestLiveStreamReusesItsChunks(t *testing.T) {
	w := &gatedWriter{open: make(chan struct{}), flushed: make(chan struct{})}
	l := newLiveStream(w)
	chunk := []byte(strings.Repeat("a line of output\n", 64<<10/17))
	for range liveChunks * 2 { // the reader is stuck: every chunk there may be is made
		l.Write(chunk)
	}
	if allocs := testing.AllocsPerRun(100, func() { l.Write(chunk) }); allocs != 0 {
		t.Errorf("writing a chunk to a live copy whose reader is behind allocates %.1f times, want 0", allocs)
	}
	close(w.open)
	for deadline := time.Now().Add(5 * time.Second); len(l.queue) > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	l.Write(chunk)
	l.close(5 * time.Second)
	if got := w.out.String(); !strings.Contains(got, gapNote) || !strings.HasSuffix(got, "a line of output\n") {
		t.Errorf("the live copy lost its gap note or its end: %d bytes", len(got))
	}
}
