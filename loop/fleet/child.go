package fleet

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"runtime"
	"sync"
)

// RunChild runs cmd, a git-ralph process driving one loop, to its end. The child gets a
// process group of its own, so that a Ctrl+C at the terminal reaches only this process,
// which passes it on once per Ctrl+C: when ctx is done (the first: the child stops its
// agent with the grace period) and when hurry closes (the second: the child kills its
// agent at once). The child keeps its own lock, signal handling and agent process groups,
// as if the user had started it.
func RunChild(ctx context.Context, hurry <-chan struct{}, cmd *exec.Cmd) error {
	cmd.SysProcAttr = ownGroup()
	runtime.LockOSThread() // the thread that starts the child outlives it (see ownGroup)
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		interrupt(cmd.Process)
		select {
		case <-hurry:
			interrupt(cmd.Process)
		case <-done:
		}
	}()
	err := cmd.Wait()
	close(done)
	return err
}

// Prefixed writes whole lines to w, each starting with prefix; writers made by one
// Prefixed's Writer share a lock, so that lines of several children never mix.
type Prefixed struct {
	mu sync.Mutex
	w  io.Writer
}

// NewPrefixed writes to w.
func NewPrefixed(w io.Writer) *Prefixed { return &Prefixed{w: w} }

// Writer is a writer whose lines go to the shared writer with prefix; Close writes a
// last unterminated line.
func (p *Prefixed) Writer(prefix string) io.WriteCloser {
	return &prefixWriter{p: p, prefix: prefix}
}

type prefixWriter struct {
	p      *Prefixed
	prefix string
	buf    []byte
}

func (w *prefixWriter) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(w.buf[:i+1])
		w.buf = w.buf[i+1:]
	}
	return len(b), nil
}

func (w *prefixWriter) Close() error {
	if len(w.buf) > 0 {
		w.line(append(w.buf, '\n'))
		w.buf = nil
	}
	return nil
}

func (w *prefixWriter) line(b []byte) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	io.WriteString(w.p.w, w.prefix)
	w.p.w.Write(b)
}
