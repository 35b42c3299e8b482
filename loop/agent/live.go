package agent

import (
	"io"
	"sync/atomic"
	"time"

	"github.com/git-ralph/git-ralph/history/redact"
)

// liveStream passes the agent's output to a terminal or pipe (--verbose) through a
// bounded queue, so a reader that stalls (a paused terminal, a pager, `| (sleep; cat)`)
// can never hold up the capture, the timeout or the loop: when the queue is full the
// live copy drops chunks; the captured output and the saved log are complete.
// Secrets are redacted by the reader's goroutine, so that redacting a flood of output
// costs the capture nothing; a dropped chunk is a gap the redaction is told of, and the
// reader a line that says so (gapNote). A writer with a Flush method (the --verbose
// rendering) is flushed when the run's output ends.
type liveStream struct {
	queue   chan []byte
	free    chan []byte // chunks the reader is done with, for the next writes
	made    int         // chunks allocated: at most liveChunks
	done    chan struct{}
	dropped atomic.Bool // a chunk was dropped since the reader last looked
}

// liveQueue is how many chunks of output (up to 64 KiB each) may wait for the reader.
const liveQueue = 16

// liveChunks bounds the chunks ever allocated: those waiting, the one the reader is on,
// and the one being filled. They are reused, so a flood of output (1 GiB, with a reader
// that falls behind) costs a fixed 1.1 MiB instead of a fresh copy of every chunk, whose
// garbage once grew git-ralph's peak RSS by tens of MiB.
const liveChunks = liveQueue + 2

// gapNote is the line the live copy shows where it dropped output.
const gapNote = "[git-ralph: live output skipped here: the terminal was too slow to take it]\n"

func newLiveStream(w io.Writer) *liveStream {
	l := &liveStream{queue: make(chan []byte, liveQueue), free: make(chan []byte, liveChunks), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		out := redact.NewWriter(w)
		for chunk := range l.queue {
			if l.dropped.Swap(false) {
				out.Gap()
				_, _ = io.WriteString(w, gapNote)
			}
			_, _ = out.Write(chunk)
			l.free <- chunk[:0] // never blocks: free holds every chunk there is
		}
		_ = out.Flush()
		if f, ok := w.(interface{ Flush() error }); ok {
			_ = f.Flush()
		}
	}()
	return l
}

// Write queues a copy of p, or drops it when the reader is too far behind.
func (l *liveStream) Write(p []byte) (int, error) {
	chunk := l.chunk()
	if chunk == nil {
		l.dropped.Store(true)
		return len(p), nil
	}
	select {
	case l.queue <- append(chunk, p...):
	default:
		l.free <- chunk
		l.dropped.Store(true)
	}
	return len(p), nil
}

// chunk is an empty chunk to copy output into: one the reader gave back, or a new one
// while fewer than liveChunks exist; nil when all are in use (the reader is behind).
func (l *liveStream) chunk() []byte {
	select {
	case c := <-l.free:
		return c
	default:
	}
	if l.made == liveChunks {
		return nil
	}
	l.made++
	return make([]byte, 0, 64<<10)
}

// close lets the reader catch up for at most within, then leaves it behind.
func (l *liveStream) close(within time.Duration) {
	close(l.queue)
	select {
	case <-l.done:
	case <-time.After(within):
	}
}

// Live is the live copy of output that no process prints (an in-process agent's
// exchange) to w, as an agent's output is copied to Spec.Live: through the same bounded
// queue, redacted on the reader's side, w flushed at the end. end lets the reader catch
// up for a moment, then leaves it behind.
func Live(w io.Writer) (live io.Writer, end func()) {
	l := newLiveStream(w)
	return l, func() { l.close(drainWait) }
}
